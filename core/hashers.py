"""The password hasher: Argon2id with parameters chosen for this 2-core machine (docs/security.md).

Django's Argon2PasswordHasher defaults (time_cost 2, memory_cost 100 MiB, parallelism 8) cost ~180 ms of CPU a
hash here, and a login competes for the two cores with everything else the machine runs; measured in Chromium
a researcher's login took up to 1.2 s. These parameters, 64 MiB of memory (RFC 9106's memory-constrained
recommendation), 2 passes, 2 lanes (the cores), cost ~105 ms of CPU and ~55 ms of wall time, and each guess
still costs an attacker 128 MiB-passes: 3.4 times OWASP's minimum for Argon2id (19 MiB, 2 passes), against
which PBKDF2-SHA256 at 1,000,000 iterations (Django's default before, 230 ms here) is cheap on a GPU.
A hash made with other parameters (Django's defaults, or PBKDF2 listed after this one) still verifies and is
rehashed with these at its next successful login (Django's must_update)."""
from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 64 * 1024  # KiB
    parallelism = 2
