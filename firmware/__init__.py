"""The Ringside referee application: command line, main loop, screens, journal."""

import os as _os

# numpy's BLAS on one thread unless the user chose otherwise, as the service file sets it: the vision's products
# are small, and a BLAS spreading them over every core spent 6-17 ms on a fit that takes 0.1 ms on one thread
# (a loaded machine). Set here, before numpy is first imported by any command.
_os.environ.setdefault("OMP_NUM_THREADS", "1")
