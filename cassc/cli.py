"""The `cassc` command. With a subcommand (doctor, setup, env, model, inspect, translate, run) it is a typer
app; otherwise it is nvcc.

The nvcc path imports as little as possible: build systems call it once per file, so its start-up
time is part of every compile.
"""

from __future__ import annotations

import os
import signal
import sys

from cassc.errors import CasscError

SUBCOMMANDS = ("doctor", "setup", "env", "model", "inspect", "translate", "run")


def main(argv: list[str] | None = None) -> int:
    # A reader that stops early (`cassc --version | head -1`) ends cassc quietly, as it ends nvcc.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in SUBCOMMANDS:
        from cassc.commands import app

        try:
            return app(args=args, prog_name="cassc", standalone_mode=False) or 0
        except CasscError as error:
            print(f"cassc {args[0]}: {error}", file=sys.stderr)
            return error.exit_code
    return nvcc_main(args)


STAGE_OPTION = "--cassc-stage="  # the command of one in-process stage, as -v/--dryrun lines show it


def nvcc_main(args: list[str]) -> int:
    from cassc.invocation import parse_invocation

    try:
        if args and args[0].startswith(STAGE_OPTION):
            from cassc.driver import execute_stage

            return execute_stage(args[0].removeprefix(STAGE_OPTION), args[1:])
        inv = parse_invocation(args)
        if inv.target == "nvidia":
            # Imports neither the AMD driver nor its toolchain: this runs where only nvcc is.
            from cassc.hip_to_cuda import execute_for_nvidia

            return execute_for_nvidia(inv, args, os.environ)
        from cassc.driver import execute

        return execute(inv)
    except CasscError as error:
        print(f"cassc fatal   : {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
