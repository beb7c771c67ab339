#!/usr/bin/python3
"""Writes small .npy/.npz files with numpy itself, so the C++ readers are
checked against the real writer. Run: /usr/bin/python3 tests/scripts/gen_io_fixtures.py"""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "fixtures", "io")
os.makedirs(out, exist_ok=True)

base = np.arange(6, dtype=np.float64).reshape(2, 3) / 4.0  # [[0, .25, .5], [.75, 1, 1.25]]
np.save(os.path.join(out, "f4_c.npy"), base.astype("<f4"))
np.save(os.path.join(out, "f8_fortran.npy"), np.asfortranarray(base))
np.save(os.path.join(out, "f2.npy"), base.astype("<f2"))
np.save(os.path.join(out, "f4_big_endian.npy"), base.astype(">f4"))
np.save(os.path.join(out, "i8.npy"), np.array([[-3, 0, 7]], dtype="<i8"))
np.save(os.path.join(out, "bool.npy"), np.array([[True, False], [False, True]]))
np.save(os.path.join(out, "tokens.npy"), np.array(["The", "猫", "sat", "ĠHello"]))
np.save(os.path.join(out, "f4_3d_fortran.npy"), np.asfortranarray(np.arange(24, dtype="<f4").reshape(2, 3, 4)))
with open(os.path.join(out, "v2.npy"), "wb") as f:
    np.lib.format.write_array(f, base.astype("<f4"), version=(2, 0))

q = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) / 10
np.savez(os.path.join(out, "stored.npz"), q=q, tokens=np.array(["a", "b", "c"]))
np.savez_compressed(os.path.join(out, "deflated.npz"), q=q, tokens=np.array(["a", "b", "c"]))
