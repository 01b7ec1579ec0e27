"""The NETCONF layer's error: a peer that broke the framing or answered what was not asked."""

from bench_runner.validation import IterationError


class NetconfError(IterationError):
    """A NETCONF protocol failure; the message, prefixed ``netconf:``, is the reason recorded.

    An IterationError (a pure leaf module, so the load image has it too) because a bad reply
    fails the runner's iteration like any invalid output; load records it as the operation's
    failure.
    """
