"""``python -m andrea_viz bench-class N --teacher``: a class of N learners with its teacher's view open, against the
same N learners without a class, side by side in one run (each on fresh servers, warmed by one learner first).

With the class: a teacher's browser context opens the Class page, gives the teacher key (``ANDREA_VIZ_TEACHER_KEY``, set
for the served process) and starts a class; N learner contexts open the Class page by the join address, join, answer the
sizing exercise (ANDREA-12M) and go to the Lesson. The learners' pages run in a Chromium (Debian's) of their own at
Linux's lowest CPU priority, the teacher's in another as usual (``learners_and_teacher``): in a class each learner's
page is on the learner's own machine. Each answer's lag runs from its Check click until the teacher's screen shows that
many answers (the k-th answer given against the moment the teacher's count reaches k: the count on the teacher's page is
the element waited on), and is split at the moment the answer reached the class store. Then the teacher turns "follow
me" on and steps the Lesson forward (``MOVES``), each time once the pages have drawn what they were sent
(``quiet_machine``); each learner's lag runs from the teacher's click until that learner's own step picker shows the
teacher's step. Every moment is read by the page it happens on (``CLICKED_AT``, ``STEP_AT``, ``COUNT_AT_LEAST``), not by
this process after Playwright's messages have queued on a saturated machine. Without the class: the same pages, the
teacher's view open but no class started, no join, and each learner steps its Lesson itself. Printed: both lags'
p50/p95 (the answer's also from the class store on), the seconds waited before each step, each server's peak resident memory above its base (the kernel's VmHWM, reset when the learners arrive) with and
without the class, and the learners' page times (Class, Sizing, Lesson: from the address or sidebar click until the
page's title is on screen and its script has run to the end) with and without the class, as a ratio, and the CPU time
the whole machine was busy from the teacher's arrival to the last step followed beside the servers' part of it (the rest
is the Chromium pages, each a learner's own machine in a class). Besides the figures, what went astray: answers the
teacher's count had not reached ``GRACE_S`` after the last was given (and how many answers the class store holds),
answers a learner's page said wait on its server, Checks clicked again because the first showed no feedback, and
learners' screens that had not followed a step within ``GRACE_S``.

``--servers 2 --store postgresql``: the same with two servers sharing one PostgreSQL class store (Debian's, started on
loopback for the run), learners split across the two, the teacher on the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..classroom.store import DB_FILE, ClassStore, SQLiteStore, open_store
from ..family import FAMILY
from ..testing_harness import (CHROMIUM_FLAGS, VIEWPORT, chromium_exe, cpu_seconds, machine_busy, reset_peak,
                               running_postgres, serve, status)
from .classroom import IDLE, MB, SESSION_TTL_S, _rendered, percentile, sidebar

KEY = "bench-class-teacher-key"
SIZE = "ANDREA-12M"  # the sizing question every learner answers (rightly: V × d)
MOVES = (2, 3)  # the Lesson steps the teacher leads the class to, one after the other
TIMEOUT_S = 600.0  # a wait longer than this on a loaded machine is a failure, not a figure
SETTLE_STEP_S = 5.0  # before the teacher steps, the machine's busy CPU is read in steps of this
SETTLE_MAX_S = 180.0  # until a step is no more than 10% below the one before (30 arriving pages kept 2 cores busy
# 20-40 s after their scripts had run), or this long at most
GRACE_S = 90.0  # how long the teacher's count may still take once every learner has answered
CHECK_TRIES = 3  # a learner whose Check shows no feedback within CHECK_WAIT_S clicks it again, as a person would
CHECK_WAIT_S = 60.0
KEPT = "Your teacher's database is away"  # the learner's caption when the answer waits on the server
TITLES = {"Class": "A class", "Sizing": "Sizing embedding tables", "Lesson": "The lesson: embeddings"}
COUNT_AT_LEAST = f"""(k) => {{ const m = document.body.innerText.match(/Sizing exercise, {SIZE}: (\\d+) answers/);
    return !!m && +m[1] >= k && Date.now(); }}"""  # the teacher's count of this question's answers has reached k: when
STEP_IS = "(k) => (document.querySelector(\".st-key-lesson-menu input[role='combobox']\") || {}).value?.startsWith(k)"
STEP_AT = f"(k) => ({STEP_IS})(k) && Date.now()"  # the page shows step k: when, by the page's clock
# Every time is read by the page it happens on (Date.now(), the machine's clock as time.time() reads it): a click when
# the page gets it, a count or a step when the page shows it, so the lags do not count how long Playwright's messages
# to and from a page waited for their turn on a saturated machine.
CLICKED_AT = "() => window.andreaClickedAt / 1000"  # seconds: the page's last click
RECORD_CLICKS = "document.addEventListener('click', () => { window.andreaClickedAt = Date.now(); }, true);"


@dataclass
class Run:
    with_class: bool
    page_times: list[float] = field(default_factory=list)  # every page of every learner (Class, Sizing, Lesson)
    answer_lags: list[float] = field(default_factory=list)  # seconds, answer given -> on the teacher's screen
    shown_lags: list[float] = field(default_factory=list)  # seconds, answer stored -> on the teacher's screen
    follow_lags: list[float] = field(default_factory=list)  # seconds, teacher's step -> on a learner's screen
    base: list[int] = field(default_factory=list)  # each server's resident bytes when the learners arrive
    peak: list[int] = field(default_factory=list)  # each server's peak resident bytes while they worked
    exceptions: int = 0
    unseen: int = 0  # answers the teacher's screen had not counted GRACE_S after the last was given
    stored: int = 0  # answers in the class store at the end
    kept: int = 0  # answers a learner's page said wait on its server (the database away)
    reclicks: int = 0  # Checks clicked again because the first showed no feedback
    unmoved: int = 0  # learners' screens not at the teacher's step GRACE_S after "follow me" moved it
    settled: list[float] = field(default_factory=list)  # seconds waited before each step for the pages to be drawn
    wall: float = 0.0  # seconds from the teacher's arrival to the last step followed
    busy: float = 0.0  # CPU seconds the whole machine was busy meanwhile (every Chromium page and server)
    server_cpu: list[float] = field(default_factory=list)  # CPU seconds each server used meanwhile

    def above(self) -> list[int]:
        return [p - b for p, b in zip(self.peak, self.base, strict=True)]


async def quiet_machine() -> float:
    """Wait until the pages have drawn what they were sent (a class's arrival, a step): the machine's busy CPU over
    SETTLE_STEP_S no longer falls by more than 10% from one step to the next and leaves a tenth of the cores free (then
    it is what the idle pages cost; a machine still saturated may still be drawing, so it is waited on up to
    SETTLE_MAX_S). Returns the seconds waited."""
    t0, last, full = time.perf_counter(), None, (os.cpu_count() or 1) * SETTLE_STEP_S
    while time.perf_counter() - t0 < SETTLE_MAX_S:
        busy0 = machine_busy()
        await asyncio.sleep(SETTLE_STEP_S)
        busy = machine_busy() - busy0
        if last is not None and 0.9 * last <= busy < 0.9 * full:
            break
        last = busy
    return time.perf_counter() - t0


async def open_timed(page, url: str, path: str) -> float:
    """Open a page by its address: seconds until its title is on screen and its script has run to the end."""
    t = time.perf_counter()
    await page.goto(f"{url}/{path}")
    await _rendered(page, TITLES[path.split("?")[0]], None, TIMEOUT_S * 1000)
    return time.perf_counter() - t


async def sidebar_timed(page, path: str) -> float:
    """Through the sidebar: seconds until the page's title is on screen and its script has run to the end."""
    t = time.perf_counter()
    await sidebar(page, path, TIMEOUT_S)
    await _rendered(page, TITLES[path], None, TIMEOUT_S * 1000)
    return time.perf_counter() - t


async def _learner(context, url: str, code: str | None, times: list[float], clicks: list[float],
                   run: Run | None = None) -> None:
    """One learner: the Class page (joining ``code`` when given), the sizing exercise answered, the Lesson."""
    page = await context.new_page()
    times.append(await open_timed(page, url, f"Class?code={code}&lang=en" if code else "Class?lang=en"))
    if code:
        await page.get_by_role("button", name="Join", exact=True).click()
        await page.locator("[data-testid='stAlertContentSuccess']").wait_for()
    times.append(await sidebar_timed(page, "Sizing"))
    s = FAMILY[SIZE]
    box = page.locator(f".st-key-sizing-exercise-{SIZE} input")
    await box.fill(str(s.V * s.d))
    await box.press("Enter")
    await page.wait_for_selector(IDLE)
    for attempt in range(CHECK_TRIES):
        await page.locator(f".st-key-sizing-exercise-{SIZE}-check button").click()
        t = await page.evaluate(CLICKED_AT)  # the answer is given
        try:  # the exercise's feedback: the click reached the server
            await page.locator("[data-testid='stAlertContentSuccess']").wait_for(timeout=CHECK_WAIT_S * 1000)
            break
        except Exception:  # noqa: BLE001 (Playwright's TimeoutError: clicked again, and counted)
            if run is not None:
                run.reclicks += 1
            if attempt == CHECK_TRIES - 1:
                raise
    clicks.append(t)
    await page.wait_for_selector(IDLE)
    if run is not None and code and await page.get_by_text(KEPT).count():
        run.kept += 1
    times.append(await sidebar_timed(page, "Lesson"))
    await page.wait_for_function(STEP_IS, arg="1.")


async def open_teacher_view(context, url: str, start: bool) -> tuple[object, str | None]:
    """The teacher's view open (the key given); with ``start``, a class started: (page, its code)."""
    page = await context.new_page()
    await open_timed(page, url, "Class?lang=en")
    await page.get_by_role("tab", name="Teach a class").click()
    await page.get_by_label("Teacher key").fill(KEY)
    await page.get_by_role("button", name="Open the teacher's view").click()
    await page.get_by_role("button", name="Start a class").wait_for()
    if not start:
        return page, None
    await page.get_by_role("button", name="Start a class").click()
    await page.get_by_text("Class code:").wait_for()
    code = re.search(r"Class code: (\w+)", await page.locator("[data-testid='stMain']").inner_text())
    return page, code.group(1)


async def _count_on_screen(teacher, n: int, seen: list[float]) -> None:
    """The moment the teacher's page first shows k answers, for k = 1 … n (the count itself waited on)."""
    for k in range(1, n + 1):
        shown = await teacher.wait_for_function(COUNT_AT_LEAST, arg=k, polling=100)
        seen.append(await shown.json_value() / 1000)


async def _warm(browser, url: str) -> None:
    """One learner's walk without a class: models loaded, modules imported, what every class finds."""
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_S * 1000)
    await _learner(context, url, None, [], [])
    await context.close()


async def learners_and_teacher(pw) -> tuple[object, object]:
    """Two Chromiums: the learners', at the lowest CPU priority (Linux's SCHED_IDLE, which every process it starts
    inherits: a script, kept in a temporary folder while it launches, execs it under util-linux's ``chrt --idle 0``;
    Chromium sets its processes' nice values itself, so nice would not hold), and the teacher's, as usual. In a class
    each learner's page runs on the learner's own machine; on one machine N of them would take the cores from the
    server and the teacher's page in proportion to their number. Among themselves the learners' pages still share what
    is left, so a learner's lag still counts the other pages' drawing."""
    chrt = shutil.which("chrt")
    if chrt is None:
        raise RuntimeError("util-linux's chrt is not on the PATH: apt-get install -y util-linux")
    with tempfile.TemporaryDirectory(prefix="andrea-viz-bench-class-") as folder:  # the script runs at launch only
        script = Path(folder) / "chromium-in-background"
        script.write_text(f'#!/bin/sh\nexec {shlex.quote(chrt)} --idle 0 {shlex.quote(chromium_exe())} "$@"\n')
        script.chmod(0o755)
        learners = await pw.chromium.launch(executable_path=str(script), args=CHROMIUM_FLAGS)
    return learners, await pw.chromium.launch(executable_path=chromium_exe(), args=CHROMIUM_FLAGS)


async def step_the_class(teacher, pages: list, k: int, following: bool) -> tuple[list[float], int]:
    """The teacher's Lesson to step ``k``; ``following``: each learner's page follows it, and each one's lag from the
    teacher's click until that page shows step k is returned, with how many pages had not within ``GRACE_S``. Not
    following (no class), each learner steps its own page at the same moment (no lags)."""

    async def arrives(page) -> float | None:
        if not following:
            await page.locator(".st-key-lesson-next button").click()
        try:
            shown = await page.wait_for_function(STEP_AT, arg=f"{k}.", polling=100, timeout=GRACE_S * 1000)
        except Exception:  # noqa: BLE001 (Playwright's TimeoutError: counted; the next step is absolute)
            return None
        return await shown.json_value() / 1000

    async def leads() -> float:
        await teacher.locator(".st-key-lesson-next button").click()
        return await teacher.evaluate(CLICKED_AT)

    t0, *arrived = await asyncio.gather(leads(), *(arrives(p) for p in pages))
    await teacher.wait_for_function(STEP_IS, arg=f"{k}.")
    return ([t - t0 for t in arrived if t is not None] if following else []), arrived.count(None)


async def class_contexts(browsers: tuple[object, object], n: int) -> list:
    """The teacher's browser context (first) and ``n`` learners' (``learners_and_teacher``'s two browsers), each
    recording its pages' clicks (``CLICKED_AT``) and giving up a wait after ``TIMEOUT_S``."""
    learners, own = browsers
    contexts = [await b.new_context(viewport=VIEWPORT) for b in [own] + [learners] * n]
    for c in contexts:
        c.set_default_timeout(TIMEOUT_S * 1000)
        await c.add_init_script(RECORD_CLICKS)
    return contexts


async def _session(urls: list[str], pids: list[int], n: int, with_class: bool, store: ClassStore) -> Run:
    from playwright.async_api import async_playwright

    run = Run(with_class)
    async with async_playwright() as pw:
        browser, own = await learners_and_teacher(pw)
        for url in urls:
            await _warm(own, url)
        contexts = await class_contexts((browser, own), n)
        run.base = [status(pid, "VmRSS") for pid in pids]
        for pid in pids:
            reset_peak(pid)
        began, busy0, cpu0 = time.perf_counter(), machine_busy(), [cpu_seconds(pid) for pid in pids]
        teacher, code = await open_teacher_view(contexts[0], urls[0], with_class)
        clicks: list[float] = []
        seen: list[float] = []
        watch = asyncio.create_task(_count_on_screen(teacher, n, seen)) if with_class else None
        await asyncio.gather(*(_learner(c, urls[i % len(urls)], code, run.page_times, clicks, run)
                               for i, c in enumerate(contexts[1:])))
        if watch is not None:
            done, _pending = await asyncio.wait({watch}, timeout=GRACE_S)
            if not done:
                watch.cancel()
            run.unseen = n - len(seen)
            stored = store.answers(code)
            run.stored = len(stored)
            run.answer_lags = answer_lags(clicks, seen)
            run.shown_lags = answer_lags([a.time for a in stored], seen)  # from the store's times

        pages = [c.pages[0] for c in contexts[1:]]
        if with_class:  # the teacher's view is still open on the Class page
            await teacher.get_by_text("Follow me").click()
            await teacher.wait_for_selector(IDLE)
        await sidebar_timed(teacher, "Lesson")
        for k in MOVES:
            run.settled.append(await quiet_machine())  # a teacher steps once the class has the step on screen
            lags, unmoved = await step_the_class(teacher, pages, k, with_class)
            run.follow_lags += lags
            run.unmoved += unmoved
        run.wall, run.busy = time.perf_counter() - began, machine_busy() - busy0
        run.server_cpu = [cpu_seconds(pid) - c for pid, c in zip(pids, cpu0, strict=True)]
        await asyncio.sleep(3)  # every page idle again
        run.peak = [status(pid, "VmHWM") for pid in pids]
        for page in [teacher, *pages]:
            run.exceptions += await page.locator("[data-testid='stException']").count()
        for c in contexts:
            await c.close()
        await browser.close()
        await own.close()
    return run


def _run_once(n: int, servers: int, env: dict[str, str], with_class: bool) -> Run:
    store = open_store(env["ANDREA_VIZ_CLASS_DB"]) if env["ANDREA_VIZ_CLASS_DB"] else SQLiteStore(
        Path(env["ANDREA_VIZ_DATA_DIR"]) / DB_FILE)  # the servers' own store, read here to count what reached it
    with contextlib.ExitStack() as stack:
        served = [stack.enter_context(serve(env)) for _ in range(servers)]
        return asyncio.run(_session([u for u, _p in served], [p for _u, p in served], n, with_class, store))


def store_env(store: str, stack: contextlib.ExitStack) -> dict[str, str]:
    env = {"ANDREA_VIZ_TEACHER_KEY": KEY, "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL_S)}
    folder = tempfile.mkdtemp(prefix="andrea-viz-bench-class-")
    stack.callback(shutil.rmtree, folder, True)
    env["ANDREA_VIZ_DATA_DIR"] = folder  # a SQLite store of this run's own (unused with PostgreSQL)
    env["ANDREA_VIZ_CLASS_DB"] = (stack.enter_context(running_postgres()).new_database()
                                  if store == "postgresql" else "")
    return env


def _p(values: list[float]) -> str:
    return f"p50 {percentile(values, 0.5):.1f} s, p95 {percentile(values, 0.95):.1f} s" if values else "none"


def _mb(values: list[int], sign: str = "") -> str:
    """Bytes per server in MB: "36 MB" for one server, "A 46 MB, B 41 MB" for two."""
    each = [f"{v / MB:{sign},.0f} MB" for v in values]
    return each[0] if len(each) == 1 else ", ".join(f"{chr(65 + i)} {e}" for i, e in enumerate(each))


def _cpu(r: Run) -> str:
    """How much of the cores the run kept busy, and the servers' part of that (the rest: the Chromium pages and this
    process), e.g. "210 of 222 cpu-s (95%) in 111 s / 12.8 cpu-s (6%)"."""
    cores = os.cpu_count() or 1
    servers = sum(r.server_cpu)
    return (f"{r.busy:,.0f} of {r.wall * cores:,.0f} cpu-s ({r.busy / (r.wall * cores):.0%}) in {r.wall:,.0f} s / "
            f"{servers:,.1f} cpu-s ({servers / r.busy:.0%})")


def answer_lags(clicks: list[float], seen: list[float]) -> list[float]:
    """Each answer's lag: the k-th answer given (by its click; or the k-th stored, by the store's time) against the
    moment the teacher's count first showed k (the count never reaches k before k answers are stored, so no lag is
    negative); answers the count never reached have none (``Run.unseen`` counts them)."""
    return [t - c for t, c in zip(seen, sorted(clicks)[:len(seen)], strict=True)]


def run(n: int, servers: int = 1, store: str = "sqlite") -> tuple[Run, Run]:
    print(f"bench-class --teacher: {platform.machine()}, {os.cpu_count()} cores; {n} learners and a teacher on "
          f"{servers} server(s) ({'learners split across them, the teacher on the first; ' if servers > 1 else ''}"
          f"class store {'PostgreSQL' if store == 'postgresql' else 'SQLite'}); fresh servers per run, each warmed by "
          f"one learner; load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    if servers > 1:
        print("servers: " + ", ".join(chr(65 + i) for i in range(servers)) + " (the teacher on A)", flush=True)
    with contextlib.ExitStack() as stack:
        env = store_env(store, stack)
        without = _run_once(n, servers, env, with_class=False)
        print(f"without a class: pages {_p(without.page_times)}; server peak {_mb(without.above())} above its base; "
              f"{without.exceptions} exceptions; load average {os.getloadavg()[0]:.1f}", flush=True)
        with_ = _run_once(n, servers, env, with_class=True)
        print(f"with the class:  pages {_p(with_.page_times)}; server peak {_mb(with_.above())} above its base; "
              f"{with_.exceptions} exceptions; load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| measure | figure |")
    print("|---|---|")
    print(f"| answer given → on the teacher's screen ({len(with_.answer_lags)} answers) | {_p(with_.answer_lags)} |")
    print(f"| of which: answer stored → on the teacher's screen (the server and the teacher's page) | "
          f"{_p(with_.shown_lags)} |")
    print(f"| answers in the class store / not on the teacher's screen {GRACE_S:.0f} s after the last / said to wait "
          f"on a server / Checks clicked again | {with_.stored} of {n} / {with_.unseen} / {with_.kept} / "
          f"{with_.reclicks} |")
    print(f"| follow me → on each learner's screen ({n} learners × {len(MOVES)} steps) | {_p(with_.follow_lags)} |")
    print(f"| learners' screens not at the teacher's step {GRACE_S:.0f} s after it moved | {with_.unmoved} |")
    print(f"| waited before each step for the pages to be drawn (with the class) | "
          f"{', '.join(f'{w:.0f} s' for w in with_.settled)} |")
    extra = [w - o for w, o in zip(with_.above(), without.above(), strict=True)]
    print(f"| server peak above its base, with − without the class | {_mb(extra, '+')} ({_mb(with_.above())} with, "
          f"{_mb(without.above())} without) |")
    for q in (0.5, 0.95):
        a, b = percentile(with_.page_times, q), percentile(without.page_times, q)
        print(f"| learners' pages p{round(q * 100)}, with / without the class | {a:.1f} s / {b:.1f} s = "
              f"×{a / b:.2f} |")
    for r in (with_, without):
        print(f"| CPU {'with' if r.with_class else 'without'} the class, the teacher's arrival to the last step: the "
              f"machine busy / the servers | {_cpu(r)} |")
    print(f"| exceptions on any page | {with_.exceptions + without.exceptions} |")
    return without, with_

