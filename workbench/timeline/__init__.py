"""Timeline compiler: canonical events -> one schedule of steps in virtual time."""
