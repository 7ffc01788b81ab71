# SPDX-License-Identifier: GPL-3.0-or-later
"""What the trace tests share: running under an interpreter that has
PyTorch."""

import os
import sys


def reexec_with_torch():
    """meson's python3 may be another interpreter than Debian's, which has
    python3-torch: run under /usr/bin/python3 when this one lacks torch.
    Exits 77 (skipped) when neither has it, but fails when CI=true (CI
    installs python3-torch and python3-torchvision)."""
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) \
            and os.environ.get("HEADROOM_ORACLE_REEXEC") is None:
        os.environ["HEADROOM_ORACLE_REEXEC"] = "1"
        os.execv(system, [system] + sys.argv)
    message = "PyTorch and torchvision are not importable (apt-get install python3-torch " \
              "python3-torchvision)"
    if os.environ.get("CI") == "true":
        sys.exit("FAIL: " + message + ", and CI must run this test")
    print("SKIP: " + message)
    sys.exit(77)
