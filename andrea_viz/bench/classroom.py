"""``python -m andrea_viz bench-class N``: a class of N learners on one server. The app runs in its own ``streamlit
run`` process; N browser contexts in one Chromium (Debian's, through Playwright) open Home at once and then go to
Neighbours, Positions and Projection through the sidebar, each page timed from the click until its script has run
to the end with its title and its table or chart on screen. Prints the median and 95th percentile page times, the
server's peak resident memory (the kernel's VmHWM, reset before the class arrives), its memory per idle session, and
what it holds 60 s after the class has gone.

``--trainings`` instead times three watched trainings (each in its own process) with the settings before issue 22 (every run at once, torch's
own threads, full garbage collection after every script run, progress polled every 0.5 s) against today's (a pool of
two, one torch thread each at a lower priority, no collection after each run, a poll every 2 s), with another
learner's page timed while they train, side by side in one run.

Needs a checkout (``streamlit_app.py`` beside the package), Playwright and Debian's ``chromium``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import time
from dataclasses import dataclass, field
from statistics import median

from ..testing_harness import CHROMIUM_FLAGS, VIEWPORT, chromium_exe, reset_peak, serve, settle, status

MB = 1 << 20
# (url path, the page's title, what must be on screen besides it)
PAGES = [
    ("", "ANDREA Embedding Explorer", None),
    ("Neighbours", "Nearest neighbours", "[data-testid='stDataFrame']"),
    ("Positions", "Where is each token? Position embeddings", ".js-plotly-plot"),
    ("Projection", "Projecting vectors to 2-D and 3-D", ".js-plotly-plot"),
]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
SETTLE_S = 60  # how long after the class has gone the server's memory is read again (at most, with settled_at)
SESSION_TTL_S = 20  # server.disconnectedSessionTTL for the measured server (Streamlit's default is 120 s)


@dataclass
class Visit:
    times: list[float] = field(default_factory=list)  # seconds per page, in PAGES order
    exceptions: int = 0
    missing: list[str] = field(default_factory=list)  # pages that did not show their title or content


async def _rendered(page, title: str, marker: str | None, timeout: float) -> bool:
    await page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=timeout)
    await page.wait_for_selector(IDLE, timeout=timeout)
    if marker is None:
        return True
    try:  # a chart is drawn by the browser after the script has sent it
        await page.locator(marker).first.wait_for(timeout=timeout)
    except Exception:  # noqa: BLE001 (Playwright's TimeoutError: counted as a page not rendered)
        return False
    return True


async def sidebar(page, path: str, timeout_s: float = 300) -> None:
    """To another page through the sidebar's link (the same session: a new address would start a new one)."""
    link = f"[data-testid='stSidebar'] a[href='{path}'], [data-testid='stSidebar'] a[href$='/{path}']"
    await page.locator(link).first.click()
    await page.wait_for_url(f"**/{path}**", timeout=timeout_s * 1000)


def percentile(values: list[float], q: float) -> float:
    """The value at quantile ``q`` of ``values`` (the nearest rank; no interpolation)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


async def visit(context, url: str, pages=PAGES, timeout_s: float = 300) -> Visit:
    """One learner: Home by its address, then each other page through the sidebar, each timed until rendered."""
    context.set_default_timeout(timeout_s * 1000)
    page = await context.new_page()
    v = Visit()
    for i, (path, title, marker) in enumerate(pages):
        t = time.perf_counter()
        if i == 0:
            await page.goto(f"{url}/{path}")
        else:
            await sidebar(page, path, timeout_s)
        ok = await _rendered(page, title, marker, timeout_s * 1000)
        v.times.append(time.perf_counter() - t)
        v.exceptions += await page.locator("[data-testid='stException']").count()
        if not ok:
            v.missing.append(path or "Home")
    return v


@dataclass
class ClassResult:
    n: int
    times: list[float]  # every page of every learner
    by_page: dict[str, list[float]]  # page -> each learner's time
    exceptions: int
    missing: list[str]
    base: int  # server resident before the class (after one warm-up learner)
    idle: int  # resident with every learner's session open and idle
    peak: int  # the kernel's peak while the class worked
    after: int  # resident SETTLE_S after the class has gone (or once back within run_class's settled_at)

    @property
    def per_idle_session(self) -> float:
        return (self.idle - self.base) / self.n

    def percentile(self, q: float) -> float:
        return percentile(self.times, q)


async def _class(url: str, pid: int, n: int, pages=PAGES, settle_s: float = SETTLE_S, forget_warm: bool = True,
                 settled_at: int | None = None) -> ClassResult:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_exe(), args=CHROMIUM_FLAGS)
        warm = await browser.new_context(viewport=VIEWPORT)
        await visit(warm, url, pages)  # models loaded, figures cached, modules imported: what every class finds
        await warm.close()
        if forget_warm:
            await asyncio.sleep(SESSION_TTL_S + 5)  # the warm-up session is forgotten before the baseline
        base = status(pid, "VmRSS")
        reset_peak(pid)
        contexts = [await browser.new_context(viewport=VIEWPORT) for _ in range(n)]
        visits = await asyncio.gather(*(visit(c, url, pages) for c in contexts))
        await asyncio.sleep(3)  # every session idle on its last page
        idle = status(pid, "VmRSS")
        peak = status(pid, "VmHWM")
        for c in contexts:
            await c.close()
        await browser.close()
    if settled_at is None:
        await asyncio.sleep(settle_s)
        after = status(pid, "VmRSS")
    else:
        after = await asyncio.to_thread(settle, pid, base + settled_at, settle_s)
    by_page = {(p or "Home"): [v.times[i] for v in visits if i < len(v.times)] for i, (p, _t, _m) in enumerate(pages)}
    return ClassResult(n, [t for v in visits for t in v.times], by_page, sum(v.exceptions for v in visits),
                       [m for v in visits for m in v.missing], base, idle, peak, after)


def run_class(url: str, pid: int, n: int, pages=PAGES, settle_s: float = SETTLE_S, forget_warm: bool = True,
              settled_at: int | None = None) -> ClassResult:
    """A class of ``n`` on the server at ``url`` (process ``pid``). Its memory ``after`` is read ``settle_s`` after
    the class has gone; with ``settled_at`` (bytes above ``base``) as soon as it is back within that, polled, and
    at ``settle_s`` at the latest."""
    return asyncio.run(_class(url, pid, n, pages, settle_s, forget_warm, settled_at))


def class_env() -> dict[str, str]:
    return {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL_S)}


def run(ns: list[int]) -> list[ClassResult]:
    print(f"bench-class: {platform.machine()}, {os.cpu_count()} cores, pages "
          f"{', '.join(p or 'Home' for p, _t, _m in PAGES)}; server.disconnectedSessionTTL = {SESSION_TTL_S} s; "
          f"a fresh server per class, warmed by one learner first; load average {os.getloadavg()[0]:.1f} at the start")
    print("| learners | pages | p50 page | p95 page | slowest | exceptions | not rendered | server before | peak | "
          f"per idle session | {SETTLE_S} s after | load average after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    results = []
    for n in ns:
        with serve(class_env()) as (url, pid):
            r = run_class(url, pid, n)
        results.append(r)
        print(f"| {n} | {len(r.times)} | {r.percentile(0.5):.1f} s | {r.percentile(0.95):.1f} s | {max(r.times):.1f} s | "
              f"{r.exceptions} | {len(r.missing)} | {r.base / MB:,.0f} MB | {r.peak / MB:,.0f} MB "
              f"(+{(r.peak - r.base) / MB:,.0f}) | {r.per_idle_session / MB:.1f} MB | {r.after / MB:,.0f} MB "
              f"(+{(r.after - r.base) / MB:,.0f}) | {os.getloadavg()[0]:.1f} |", flush=True)
    print("\nmedian per page: " + "; ".join(
        f"{r.n} learners: " + ", ".join(f"{p} {median(t):.1f} s" for p, t in r.by_page.items()) for r in results))
    return results


# ---- three watched trainings, the settings before issue 22 against today's -------------------------------------

SETTINGS = {
    "3 at once, torch's threads, nice 0, GC after each run, poll 0.5 s": {
        "ANDREA_VIZ_MAX_TRAININGS": "3", "ANDREA_VIZ_TRAINING_THREADS": str(os.cpu_count() or 1),
        "ANDREA_VIZ_TRAINING_NICE": "0", "STREAMLIT_RUNNER_POST_SCRIPT_GC": "true", "ANDREA_VIZ_POLL_SECONDS": "0.5"},
    "today's pool, GC after each run, poll 0.5 s": {
        "STREAMLIT_RUNNER_POST_SCRIPT_GC": "true", "ANDREA_VIZ_POLL_SECONDS": "0.5"},
    "today (pool of 2, 1 thread at nice +19, trainings in their own processes, no GC after runs, poll 2 s)": {},
}
ONLY = {  # --only NAME: one row
    "before": "3 at once, torch's threads, nice 0, GC after each run, poll 0.5 s",
    "gc": "today's pool, GC after each run, poll 0.5 s",
    "today": "today (pool of 2, 1 thread at nice +19, trainings in their own processes, no GC after runs, poll 2 s)",
}


async def _trainings(url: str, steps: int, looks: int, window_s: float) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium_exe(), args=CHROMIUM_FLAGS)
        other = await browser.new_context(viewport=VIEWPORT)
        await visit(other, url, PAGES[:2])  # the other learner, and the model, ready
        contexts = [await browser.new_context(viewport=VIEWPORT) for _ in range(3)]
        for c in contexts:
            c.set_default_timeout(300_000)
        pages = [await c.new_page() for c in contexts]
        for page in pages:
            await page.goto(f"{url}/Grow")
            await page.get_by_role("heading", name="Grow an ANDREA and watch its table learn").wait_for()
            await page.wait_for_selector(IDLE)
            box = page.get_by_role("spinbutton", name="Steps")
            await box.fill(str(steps))
            await box.press("Tab")
            await page.wait_for_selector(IDLE)

        async def train(page, t0: float) -> str:
            """'12.3 s' when it ended within the window, else how far it got ('step 55', 'preparing' the corpus, 'queued')."""
            await page.get_by_role("button", name="Train").click()
            try:
                await page.locator("[data-testid='stSlider']", has_text="Training step").wait_for(
                    timeout=max(1.0, window_s - (time.perf_counter() - t0)) * 1000)
                return f"{time.perf_counter() - t0:.1f} s"
            except Exception:  # noqa: BLE001 (Playwright's TimeoutError: still training or waiting)
                bar = page.locator("[data-testid='stProgress']")
                if await bar.count():
                    text = await bar.first.inner_text()
                    return ("step " + text.split("step ")[-1].split(" of")[0]) if "step " in text else "preparing"
                return "queued"

        page = await other.new_page()  # the other learner's tab is open on Home before the three press Train, so
        await page.goto(url)  # each look below is a page of the app's own, not a browser starting a tab
        await _rendered(page, PAGES[0][1], None, 120_000)
        t0 = time.perf_counter()
        runs = asyncio.gather(*(train(p, t0) for p in pages))
        await asyncio.sleep(5)  # the three have pressed Train
        renders = []
        for _ in range(looks):  # the other learner opens Neighbours again and again while the three train
            t = time.perf_counter()
            try:
                await page.goto(f"{url}/Neighbours?word=cat")
                await _rendered(page, "Nearest neighbours", "[data-testid='stDataFrame']", 120_000)
                renders.append(f"{time.perf_counter() - t:.1f}")
            except Exception:  # noqa: BLE001
                renders.append("> 120")
        done = await runs
        await browser.close()
    return {"runs": done, "renders": renders}


def run_trainings(steps: int = 600, looks: int = 3, window_s: float = 75, only: str | None = None) -> dict:
    print(f"bench-class --trainings: {platform.machine()}, {os.cpu_count()} cores; three learners press Train "
          f"({steps} steps of the micro preset) at once and watch, while a fourth opens Neighbours {looks} times; each "
          f"training: seconds from the three clicks until its snapshots are on its page, or where it stood after "
          f"{window_s:.0f} s")
    print(f"| settings | the three trainings (within {window_s:.0f} s) | Neighbours while they train (each, s) | "
          "load average after |")
    print("|---|---|---|---|")
    out = {}
    for name, env in SETTINGS.items():
        if only is not None and name != ONLY[only]:
            continue
        with serve(env) as (url, _pid):
            r = asyncio.run(_trainings(url, steps, looks, window_s))
        out[name] = r
        print(f"| {name} | {', '.join(r['runs'])} | {', '.join(r['renders'])} | {os.getloadavg()[0]:.1f} |", flush=True)
    return out
