"""``python -m skillcite`` runs the command-line interface (a warm ``check`` without click)."""

from .cli.fast import run

if __name__ == "__main__":
    run()
