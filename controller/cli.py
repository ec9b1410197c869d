"""The `basra-table` command line: the root app and its one-line error handling.

Each command group lives in its own `cli_*.py` module and registers itself here;
bad input anywhere exits 2 with a single line on stderr and never a traceback.
"""

from __future__ import annotations

import os
import sys

import click
import typer

from controller.errors import UserError

try:  # typer >= 0.29 vendors its own copy of click; catch both families.
    from typer._click import exceptions as _typer_click
except ImportError:  # pragma: no cover - older typer uses click itself
    _typer_click = click.exceptions

_EXIT = (click.exceptions.Exit, typer.Exit)
_ABORT = (click.exceptions.Abort, typer.Abort)
_USAGE = (click.ClickException, _typer_click.ClickException)
_NO_ARGS = tuple(
    getattr(mod, "NoArgsIsHelpError", None)
    for mod in (click.exceptions, _typer_click)
    if getattr(mod, "NoArgsIsHelpError", None) is not None
)


app = typer.Typer(
    name="basra-table",
    help="Referee and score real Basra games from an overhead camera.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Each module exposes register(app); imports inside them stay lazy so that
# `basra-table rules …` never pays for onnxruntime or FastAPI.
_COMMAND_MODULES = (
    "controller.cli_rules",
    "controller.cli_simulate",
    "controller.cli_vision",
    "controller.cli_scoreboard",
    "controller.cli_run",
    "controller.cli_demo",
)


def _register_all() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a group not built yet must not break the others
            if exc.name == name:
                continue
            raise
        module.register(app)


_register_all()


def fail(message: str) -> None:
    """Print one error line and exit 2 (bad input)."""
    raise UserError(message)


def run(argv: list[str] | None = None) -> int:
    """Run the app and return the exit status, turning every failure into one stderr line."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        app(args=args, prog_name="basra-table", standalone_mode=False)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except _EXIT as exc:
        return int(exc.exit_code or 0)
    except _ABORT:
        print("error: aborted", file=sys.stderr)
        return 130
    except _NO_ARGS:
        return 0  # the help text was printed
    except _USAGE as exc:
        print(f"error: {exc.format_message()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback for users
        if os.environ.get("BASRA_DEBUG"):
            raise
        print(f"error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())


if __name__ == "__main__":
    main()
