"""Scheduled runs: the crontab supercronic runs, the job it starts (one nightly run at a
time, its status pushed for the alert that watches it) and the pruning of old runs."""
