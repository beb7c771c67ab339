#!/usr/bin/python3
"""The explorer's speed targets, measured in a real window. Run it under an X server,
normally through tests/bench/gui_timing.sh (xvfb-run); needs xdotool, and
ImageMagick's import for the screenshots.

Usage: /usr/bin/python3 tests/bench/gui_timing.py [build dir] [--runs R] [--drag-seconds S] [--shots DIR]
(--shots: screenshots and the timing lines of each window go there)

Opens `attnscope FILE` on q/k/v for 12 heads x 64 (the inputs of
compare_end_to_end.py) with ATTNSCOPE_TIMING=1 and reads its timing lines
(ui/attn_ui/system/timing_probe.h):
  - N = 4096: ms from the open request to the heatmap's first draw of the file's
    result, and to the Metrics dock's first analysis of it; target: metrics within
    1.5x the heatmap's time.
  - N = 512: drags the temperature slider with xdotool (mouse held, moved back
    and forth) and counts, between the first and the last slider move, the
    heatmap's paints and the paints that show a newer result; target: 20 or more
    repaints per second with the Metrics dock visible.
Prints a table; asserts nothing (a benchmark: wall times on a shared machine).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HEADS, DIM = 12, 64


def arg_value(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def qkv_file(n, tmp):
    path = os.path.join(tmp, f"qkv{n}.npz")
    r = np.random.default_rng(0)
    q, k, v = (r.standard_normal((HEADS, n, DIM)).astype(np.float32) for _ in range(3))
    np.savez(path, q=q, k=k, v=v)
    return path


class Gui:
    """One attnscope process with a fresh settings folder (default layout, no autosave)."""

    def __init__(self, exe, path, tmp, tag):
        home = os.path.join(tmp, f"home-{tag}")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                   XDG_DATA_HOME=os.path.join(home, ".local/share"), ATTNSCOPE_TIMING="1",
                   QT_QPA_PLATFORM="xcb")
        self.log = os.path.join(tmp, f"{tag}.log")
        self.err = open(self.log, "w")
        self.proc = subprocess.Popen([exe, "--restore-autosave", "no", path], env=env,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def lines(self):
        """Each "timing EVENT T ms KEY VALUE ..." line as a dict: event, t (ms) and the pairs."""
        out = []
        with open(self.log) as f:
            for line in f:
                w = line.split()
                if len(w) >= 4 and w[0] == "timing" and w[3] == "ms":
                    d = dict(zip(w[4::2], w[5::2]))
                    d.update(event=w[1], t=int(w[2]))
                    out.append(d)
        return out

    def wait_for(self, events, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            seen = {l["event"] for l in self.lines()}
            if all(e in seen for e in events):
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"attnscope exited ({self.proc.returncode}): {open(self.log).read()[-800:]}")
            time.sleep(0.1)
        raise RuntimeError(f"no {events} after {timeout} s: {open(self.log).read()[-800:]}")

    def event(self, name):
        return next(l for l in self.lines() if l["event"] == name)

    def close(self, keep=""):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()
        if keep:  # the timing lines next to the screenshots
            shutil.copy(self.log, keep)


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def screenshot(shots, name):
    if shots:
        subprocess.run(["import", "-window", "root", os.path.join(shots, name)], check=False)


def first_draw(exe, path, tmp, tag, shots):
    gui = Gui(exe, path, tmp, tag)
    try:
        gui.wait_for(["heatmap-first-draw", "metrics-filled"], timeout=600)
        heat = gui.event("heatmap-first-draw")["t"]
        metrics = gui.event("metrics-filled")["t"]
        result = next(l for l in gui.lines() if l["event"] == "result" and l["n"] == gui.event("heatmap-first-draw")["n"])
        time.sleep(1.0)
        screenshot(shots, f"{tag}.png")
        return gui.event("file-loaded")["t"], heat, metrics, result
    finally:
        gui.close(shots)


def drag(exe, path, tmp, seconds, shots):
    gui = Gui(exe, path, tmp, "drag512")
    try:
        gui.wait_for(["heatmap-first-draw", "metrics-filled"], timeout=300)
        s = gui.event("slider")
        x, y, w, h = int(s["x"]), int(s["y"]), int(s["w"]), int(s["h"])
        time.sleep(1.5)  # idle before the drag
        before = len(gui.lines())
        cpu0 = cpu_seconds(gui.proc.pid)
        # Press on the handle (temperature 1 is the middle), then sweep 30-70% of the
        # groove and back, one move per 20 ms, as a hand drag does.
        cy = y + h // 2
        xs, steps = [], int(seconds / 0.02)
        lo, hi = x + int(0.3 * w), x + int(0.7 * w)
        pos, d = x + w // 2, 3
        for _ in range(steps):
            pos += d
            if pos >= hi or pos <= lo:
                d = -d
            xs.append(pos)
        cmd = ["xdotool", "mousemove", str(x + w // 2), str(cy), "mousedown", "1"]
        for px in xs:
            cmd += ["sleep", "0.02", "mousemove", str(px), str(cy)]
        subprocess.run(cmd, check=True)
        screenshot(shots, "drag512-during.png")
        subprocess.run(["xdotool", "mouseup", "1"], check=True)
        cpu = cpu_seconds(gui.proc.pid) - cpu0
        time.sleep(3.0)  # let the last request finish
        screenshot(shots, "drag512-after.png")
        after = gui.lines()[before:]
    finally:
        gui.close(shots)
    moves = [l["t"] for l in after if l["event"] == "slider-moved"]
    if len(moves) < 2:
        raise RuntimeError("the slider did not move: is the window where the probe says?")
    t0, t1 = moves[0], moves[-1]
    inside = [l for l in after if t0 <= l["t"] <= t1]
    paints = [l for l in inside if l["event"] == "heatmap-paint"]
    results = [l for l in inside if l["event"] == "result"]
    fresh, last_gen = 0, None  # paints showing a result the previous paint did not
    for l in paints:
        if l["gen"] != last_gen:
            fresh += 1
            last_gen = l["gen"]
    span = (t1 - t0) / 1000.0
    engine = sorted(float(l["engine"]) for l in results)
    # CPU of the whole process (every thread) per result shown: on a shared machine the
    # rate says as much about the neighbours; 2 free cores give 2000 / this results/s at most.
    shown = [l for l in after if l["event"] == "result"]
    return dict(span=span, moves=len(moves), paints=len(paints) / span, fresh=fresh / span,
                cpu_per_result=1000.0 * cpu / max(1, len(shown)),
                results=len(results) / span, engine=engine[len(engine) // 2] if engine else float("nan"))


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1)
            if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
    build = args[0] if args else os.path.join(os.path.dirname(__file__), "../../build/release")
    exe = os.path.join(build, "bin/attnscope")
    runs = int(arg_value("--runs", "2"))
    seconds = float(arg_value("--drag-seconds", "6"))
    shots = arg_value("--shots", "")
    if shots:
        os.makedirs(shots, exist_ok=True)
    screen = subprocess.run(["xdpyinfo"], capture_output=True, text=True).stdout
    dims = re.search(r"dimensions:\s+(\S+)", screen)
    print(f"# {exe} on DISPLAY={os.environ.get('DISPLAY')} ({dims.group(1) if dims else '?'}), "
          f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        big, small = qkv_file(4096, tmp), qkv_file(512, tmp)
        print("| N = 4096, run (ms from the open request) | file read | engine job | heatmap first draw | "
              "every panel updated | Metrics dock filled | dock ÷ heatmap | target |")
        print("|---|---|---|---|---|---|---|---|")
        for r in range(runs):
            loaded, heat, metrics, result = first_draw(exe, big, tmp, f"open4096-{r + 1}", shots)
            print(f"| {r + 1} | {loaded} | {float(result['engine']):.0f} | {heat} | {result['t']} | {metrics} | "
                  f"{metrics / heat:.2f}× | ≤ 1.5× |", flush=True)
        print()
        print("| N = 512, temperature drag | slider moves | engine job (median) | results/s | heatmap paints/s | "
              "paints with a new result/s | CPU ms per result | target |")
        print("|---|---|---|---|---|---|---|---|")
        for r in range(runs):
            d = drag(exe, small, tmp, seconds, shots)
            print(f"| {r + 1} ({d['span']:.1f} s) | {d['moves']} | {d['engine']:.0f} ms | {d['results']:.1f} | "
                  f"{d['paints']:.1f} | {d['fresh']:.1f} | {d['cpu_per_result']:.0f} | ≥ 20 |", flush=True)
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
