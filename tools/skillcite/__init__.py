"""skillcite: verify that every quotation in a skill package matches its cached evidence.

Layers, each importing only those before it: ``core`` (text I/O, configuration,
diagnostics) <- ``check`` (parsing, matching, rules) <- ``repair``, ``dist``,
``refresh`` <- ``cli``. The library entry point is ``skillcite.check.check``.
"""

__version__ = "0.1.0"

from .core.config import Config, load_config  # noqa: E402  (after __version__, which submodules read)
from .core.diagnostics import CODES, Diagnostic, Severity  # noqa: E402

__all__ = ["CODES", "Config", "Diagnostic", "Severity", "__version__", "load_config"]
