"""The run machinery the instance configs point at: the local run launcher and its warm run
workers (dagster.yaml), and the Celery one (dagster.celery.yaml). Nothing in the definitions or the
core imports it."""
