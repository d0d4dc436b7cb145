"""The Celery worker: thin tasks over the application service."""
