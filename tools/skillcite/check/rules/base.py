"""What every rule module declares: its codes and the function that finds them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ...core.diagnostics import Diagnostic
from ..parsing.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Rule:
    """A family of codes and the function that finds them."""

    name: str  # the module's name under skillcite.check.rules
    codes: tuple[str, ...]
    run: Callable[[Workspace], Iterable[Diagnostic]]
