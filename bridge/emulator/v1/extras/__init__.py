"""v1 routes the bridge never calls: webhooks, rate packs, incentive packs and project incentives, project
fringe groups (``packs`` holds what only they keep)."""
