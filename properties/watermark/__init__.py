"""Properties of watermark propagation: the valve, combined inputs, event-time timers."""
