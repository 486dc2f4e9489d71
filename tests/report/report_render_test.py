#!/usr/bin/env python3
"""The HTML report in a real browser: vqx scores a fixture pair with --report, headless Chromium
(Debian's `chromium`) opens the page, and the test checks what it rendered:
  - the DOM after the page's script ran (--dump-dom): one plot per pooled metric, each with a
    drawn line (the script's data-plots-drawn), WORST thumbnail pairs that all
    decoded (data-thumbnails-decoded), WORST worst-frame marks;
  - the page opened at #frame=N (the worst frame): the cursor and the value of every panel
    there, vmaf's equal to the JSON output's;
  - a screenshot: not blank (many colours, much of it not background), with the plot lines'
    blue and the thumbnails' picture content present.
Without chromium the test skips (exit 77) with a message, unless VQX_REQUIRE_CHROMIUM=1 (CI),
where that fails. --docs-screenshot PATH also writes the screenshot the README shows.
  usage: report_render_test.py --vqx VQX --out DIR [--docs-screenshot PATH]
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77
WORST = 4  # --report_worst: two rows of pairs, so the screenshot reaches the plots


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, *args):
    # Headless, without a sandbox (CI runs as root) or a GPU; the page needs no network.
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--allow-file-access-from-files", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        fail("chromium exited %d: %s" % (result.returncode, result.stderr[-2000:]))
    return result.stdout


def read_png(path):
    """8-bit RGB or RGBA PNG (what Chromium writes) as (width, height, rows of (r, g, b))."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    at, idat, width = 8, b"", 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                fail("unexpected screenshot PNG: depth %d colour type %d" % (depth, color))
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + a) & 255
            elif kind == 2:
                row[i] = (row[i] + b) & 255
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(row[x * channels:x * channels + 3]) for x in range(width)])
        previous = row
    return width, height, rows


def check_dom(dom, metrics):
    body = re.search(r"<body([^>]*)>", dom)
    if not body:
        fail("no <body> in the dumped DOM")
    attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    plots = len(re.findall(r'<svg class="plot"', dom))
    if plots != metrics:
        fail("%d plots for %d metrics" % (plots, metrics))
    if attributes.get("data-plots-drawn") != str(metrics):
        fail("the browser drew %s of %d plot lines" % (attributes.get("data-plots-drawn"), metrics))
    thumbs = len(re.findall(r'<img class="thumb (reference|distorted)"', dom))
    if thumbs != 2 * WORST:
        fail("%d thumbnails, expected %d" % (thumbs, 2 * WORST))
    if attributes.get("data-thumbnails-decoded") != str(2 * WORST):
        fail("the browser decoded %s of %d thumbnails" % (attributes.get("data-thumbnails-decoded"), 2 * WORST))
    marks = len(re.findall(r'<circle class="worst-mark"', dom))
    if marks != WORST:
        fail("%d worst-frame marks on the vmaf plot, expected %d" % (marks, WORST))
    print("DOM: %d plots drawn, %d thumbnails decoded, %d marks" % (plots, thumbs, marks))


def worst_frame(results):
    frames = json.load(open(results))["frames"]
    return min(frames, key=lambda f: (f["metrics"]["vmaf"], f["frameNum"]))["frameNum"]


def check_cursor(dom, frame, results):
    """The page opened at #frame=N: every panel's readout names frame N, vmaf's with its score."""
    readouts = re.findall(r'<span class="readout">([^<]*)</span>', dom)
    if not readouts or any(not r.startswith("frame %d: " % frame) for r in readouts):
        fail("the readouts at frame %d are %r" % (frame, readouts[:3]))
    score = next(f for f in json.load(open(results))["frames"] if f["frameNum"] == frame)["metrics"]["vmaf"]
    shown = float(readouts[0].split(": ")[1])  # the vmaf panel comes first
    if abs(shown - score) > 5e-7:
        fail("the vmaf readout at frame %d says %r, the JSON output %r" % (frame, shown, score))
    if len(re.findall(r'class="cursor"[^>]*style="visibility: visible;"', dom)) != len(readouts):
        fail("the cursor is not drawn in every panel")
    print("cursor: %d panels at frame %d, vmaf %s" % (len(readouts), frame, readouts[0]))


def check_screenshot(path):
    width, height, rows = read_png(path)
    pixels = [p for row in rows for p in row]
    colours = len(set(pixels))
    background = sum(1 for p in pixels if min(p) >= 245) / len(pixels)
    # The plot line is the page's only blue (anti-aliased at this scale, so lighter than LINE_RGB);
    # the thumbnails are the only other colourful pixels (the fixture is reds and browns).
    line = sum(1 for p in pixels if p[2] - p[0] > 40 and p[2] > p[1])
    picture = sum(1 for p in pixels if max(p) - min(p) > 40 and not (p[2] - p[0] > 40 and p[2] > p[1]))
    print("screenshot %dx%d: %d colours, %.0f%% background, %d plot-line pixels, %d picture pixels"
          % (width, height, colours, background * 100, line, picture))
    if colours < 500:
        fail("the screenshot has only %d colours: blank or unstyled" % colours)
    if background > 0.95:
        fail("the screenshot is %.0f%% background" % (background * 100))
    if line < 300:
        fail("the plot lines are not in the screenshot (%d pixels of their colour)" % line)
    if picture < 20000:
        fail("the thumbnails are not in the screenshot (%d picture pixels)" % picture)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vqx", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--docs-screenshot")
    args = parser.parse_args()

    browser = find_chromium()
    if not browser:
        message = "chromium is not installed (Debian: apt-get install chromium; scripts/setup.sh installs it)"
        if os.environ.get("VQX_REQUIRE_CHROMIUM") == "1":
            fail(message)
        print("SKIP: " + message)
        return SKIP
    fixtures = os.environ.get("VQX_FIXTURES")
    pair = os.path.join(fixtures, "n576") if fixtures else None
    if not pair or not os.path.isfile(os.path.join(pair, "ref.y4m")):
        if os.environ.get("VQX_REQUIRE_FIXTURES") == "1":
            fail("fixture n576 is missing")
        print("SKIP: fixtures not available (set VQX_FIXTURES)")
        return SKIP

    os.makedirs(args.out, exist_ok=True)
    html = os.path.join(args.out, "report.html")
    results = os.path.join(args.out, "report.json")
    run = subprocess.run([args.vqx, "-r", os.path.join(pair, "ref.y4m"), "-d", os.path.join(pair, "dis.y4m"),
                          "-q", "--threads", "2", "--report_worst", str(WORST), "--json", "-o", results, "--report", html],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail("vqx exited %d: %s" % (run.returncode, run.stderr))
    metrics = len(json.load(open(results))["pooled_metrics"])

    url = "file://" + os.path.abspath(html)
    check_dom(chromium(browser, "--dump-dom", url), metrics)
    check_cursor(chromium(browser, "--dump-dom", url + "#frame=%d" % worst_frame(results)), worst_frame(results),
                 results)
    screenshot = os.path.join(args.out, "report.png")
    # The top of the page (table, worst frames, the first plots) at 0.6 scale: a small picture.
    chromium(browser, "--window-size=1200,1500", "--force-device-scale-factor=0.6", "--screenshot=" + screenshot, url)
    check_screenshot(screenshot)
    if args.docs_screenshot:
        shutil.copyfile(screenshot, args.docs_screenshot)
        print("wrote " + args.docs_screenshot)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
