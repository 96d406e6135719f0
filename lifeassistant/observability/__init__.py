"""What an operator sees: Prometheus metrics, OpenTelemetry traces, JSON logs, health.

The reply path calls the small named functions of ``metrics`` and ``tracing`` (one line
each); everything they record, and how, lives here.
"""
