"""``python -m andrea_viz bench-class N --idle``: what a joined class costs while nobody does anything, and how fast a
step reaches it, with the class's route (``web.class_events``: each waiting page holds a websocket and reruns only
when its class changes) against a timer (each waiting page reruns its fragment every 2 s, as the app did before the
route and still does where the route is not served), side by side in one run.

Both on a fresh server of the same code: the route's is ``streamlit run streamlit_app.py``, the timer's ``streamlit run
home.py`` (the same pages, no ``st.App``, so no route). N learner contexts (one Chromium, Debian's) join the class by
its address and open the Lesson; the teacher's view turns "follow me" on and opens the Lesson. Once the arrivals are
over (``class_teacher.quiet_machine``), the machine's busy CPU and the server's are read over ``WINDOWS`` windows of ``WINDOW_S``
(medians printed); then the teacher steps the Lesson forward (``MOVES``) and each learner's lag runs from the click
until that learner's step picker shows the step (both read by the pages themselves; the learners' pages at the lowest
CPU priority, the teacher's not: ``class_teacher.learners_and_teacher``). Before the class, one page alone on each server steps the Lesson
the same way and Chromium's main-thread seconds for each step are read (``_step_work``): N pages' own drawing of a
step on the machine's cores is a floor under the last screen's lag that no server can lower."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import statistics
from dataclasses import dataclass, field

from ..testing_harness import VIEWPORT, cpu_seconds, machine_busy, serve
from .class_teacher import (GRACE_S, IDLE, MOVES, STEP_IS, class_contexts, learners_and_teacher, open_teacher_view,
                            open_timed, quiet_machine, sidebar_timed, step_the_class, store_env)
from .classroom import percentile

WINDOWS = 3
WINDOW_S = 10.0
WAYS = {"route": "streamlit_app.py", "timer": "home.py"}


@dataclass
class Idle:
    way: str
    busy: list[float] = field(default_factory=list)  # the machine's busy CPU seconds in each window
    server: list[float] = field(default_factory=list)  # the server's CPU seconds in each window
    follow_lags: list[float] = field(default_factory=list)
    unmoved: int = 0
    step_work: list[float] = field(default_factory=list)  # one page alone: Chromium's main-thread seconds per move
    settled: float = 0.0  # seconds waited for the arrivals to be over


async def _joined(context, url: str, code: str) -> object:
    """One learner: the join address, Join, then the Lesson through the sidebar (at the teacher's step 1)."""
    page = await context.new_page()
    await open_timed(page, url, f"Class?code={code}&lang=en")
    await page.get_by_role("button", name="Join", exact=True).click()
    await page.locator("[data-testid='stAlertContentSuccess']").wait_for()
    await sidebar_timed(page, "Lesson")
    await page.wait_for_function(STEP_IS, arg="1.")
    return page


async def _step_work(browser, url: str) -> list[float]:
    """One page alone on the Lesson: the seconds of Chromium's main thread each of ``MOVES`` takes (the Performance
    domain's TaskDuration, from the click until the step is drawn and a second more for its charts' paint)."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    await open_timed(page, url, "Lesson?lang=en")
    await page.wait_for_function(STEP_IS, arg="1.")
    await asyncio.sleep(2)
    cdp = await context.new_cdp_session(page)
    await cdp.send("Performance.enable")

    async def task_s() -> float:
        return next(m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]
                    if m["name"] == "TaskDuration")

    out = []
    for k in MOVES:
        t0 = await task_s()
        await page.locator(".st-key-lesson-next button").click()
        await page.wait_for_function(STEP_IS, arg=f"{k}.")
        await page.wait_for_selector(IDLE)
        await asyncio.sleep(1)
        out.append(await task_s() - t0)
    await context.close()
    return out


async def _idle_class(way: str, url: str, pid: int, n: int) -> Idle:
    from playwright.async_api import async_playwright

    out = Idle(way)
    async with async_playwright() as pw:
        browsers = await learners_and_teacher(pw)
        out.step_work = await _step_work(browsers[1], url)  # one page alone, as the teacher's: nothing beside it
        contexts = await class_contexts(browsers, n)
        teacher, code = await open_teacher_view(contexts[0], url, True)
        await teacher.get_by_text("Follow me").click()
        await teacher.wait_for_selector(IDLE)
        await sidebar_timed(teacher, "Lesson")
        pages = await asyncio.gather(*(_joined(c, url, code) for c in contexts[1:]))
        out.settled = await quiet_machine()
        for _w in range(WINDOWS):
            busy0, cpu0 = machine_busy(), cpu_seconds(pid)
            await asyncio.sleep(WINDOW_S)
            out.busy.append(machine_busy() - busy0)
            out.server.append(cpu_seconds(pid) - cpu0)
        for k in MOVES:
            lags, unmoved = await step_the_class(teacher, pages, k, True)
            out.follow_lags += lags
            out.unmoved += unmoved
        for b in browsers:
            await b.close()
    return out


def run(n: int) -> dict[str, Idle]:
    cores = os.cpu_count() or 1
    print(f"bench-class --idle: {platform.machine()}, {cores} cores; {n} joined learners idle on the Lesson page, "
          f"'follow me' on; the class's route against a 2 s timer, each on a fresh server; {WINDOWS} windows of "
          f"{WINDOW_S:.0f} s once the arrivals are over; load average {os.getloadavg()[0]:.1f} at the start",
          flush=True)
    runs = {}
    for way, script in WAYS.items():
        with contextlib.ExitStack() as stack:
            env = store_env("sqlite", stack)
            url, pid = stack.enter_context(serve(env, script=script))
            runs[way] = asyncio.run(_idle_class(way, url, pid, n))
        r = runs[way]
        print(f"{way} ({script}): settled in {r.settled:.0f} s, then the machine busy "
              f"{', '.join(f'{b:.1f}' for b in r.busy)} cpu-s per {WINDOW_S:.0f} s; load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    route, timer = runs["route"], runs["timer"]
    print(f"| measure ({n} learners) | the route | a 2 s timer | timer / route |")
    print("|---|---|---|---|")
    for name, attr in (("the machine busy", "busy"), ("the server", "server")):
        a, b = statistics.median(getattr(route, attr)), statistics.median(getattr(timer, attr))
        print(f"| {name}, cpu-s per {WINDOW_S:.0f} s idle (median of {WINDOWS}; {WINDOW_S * cores:.0f} is every "
              f"core) | {a:.2f} | {b:.2f} | ×{b / a:.1f} |")
    for q in (0.5, 0.95):
        a, b = percentile(route.follow_lags, q), percentile(timer.follow_lags, q)
        print(f"| follow me → on each learner's screen, p{round(q * 100)} ({n} × {len(MOVES)} steps) | {a:.1f} s | "
              f"{b:.1f} s | ×{b / a:.1f} |")
    print(f"| learners' screens not at the teacher's step {GRACE_S:.0f} s after it moved | {route.unmoved} | "
          f"{timer.unmoved} | |")
    work = [statistics.mean(w) for w in zip(route.step_work, timer.step_work, strict=True)]
    print(f"| one page alone, Chromium's main thread per step ({', '.join(f'step {k}' for k in MOVES)}; both "
          f"servers' mean) | {', '.join(f'{w:.2f} s' for w in work)} | | |")
    print(f"| so the last of {n} screens on {cores} cores, at the least ({n} × that ÷ {cores}) | "
          f"{', '.join(f'{n * w / cores:.1f} s' for w in work)} | | |")
    return runs
