"""skillcite: verify that every quotation in a skill package matches its cached evidence."""

from .check import Report, check
from .config import Config, load_config
from .diagnostics import CODES, Diagnostic, Severity

__all__ = ["CODES", "Config", "Diagnostic", "Report", "Severity", "check", "load_config"]
__version__ = "0.1.0"
