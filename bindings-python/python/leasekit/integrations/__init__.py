"""Drop-in integrations of leasekit into other runtimes (``leasekit.integrations.arcp``: the
ARCP Python SDK)."""
