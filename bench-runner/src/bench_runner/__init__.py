"""Transport Lab benchmark runner."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bench-runner")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
