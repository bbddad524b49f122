"""A page that waits on its class: an invisible component that holds a websocket to the server's class route
(``web.class_events``) and reruns the fragment it sits in when the class's mark changes, and only then. Where the
route is not served (``streamlit run home.py``) or cannot be reached (a proxy that passes only Streamlit's own paths)
it reruns the fragment every ``EVERY_S`` instead, as a timer would."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ..web import class_events

EVERY_S = 2.0  # without the route: the fragment reruns this often; with it, a closed websocket is opened again this late
GAP_S = 0.4  # at least this long between two reruns of one page (answers given within it are drawn at once)
HOLD_S = 10.0  # a rerun asked for and not yet drawn holds back the next this long at most (see the script)
JS = """
const rerunAt = new Map();  // data.url -> when it last reran its fragment (kept across the mounts of one page)
export default function ({ data, setTriggerValue }) {
  let stopped = false, socket = null, timer = null, later = null, since = data.since, timed = !data.url, asked = 0;
  // One rerun in flight at a time: a rerun asked for while the last is still drawing would stop it and start again,
  // so under a stream of answers on a busy machine the view would never finish. The fragment's next run mounts this
  // again with the mark it read (a new socket, which is sent any later mark at once), so nothing is missed. At most
  // one rerun per data.gap ms: answers given together are drawn together.
  const rerun = () => {
    if (asked && Date.now() - asked < data.hold) return;
    clearTimeout(later);
    const wait = (rerunAt.get(data.url) || 0) + data.gap - Date.now();
    const go = () => {
      rerunAt.set(data.url, Date.now());
      asked = Date.now();
      if (!stopped) setTriggerValue("changed", since);
    };
    if (wait > 0) later = setTimeout(go, wait); else go();
  };
  const open = () => {
    if (stopped) return;
    if (timed) {  // no route (or none reachable): a rerun every data.every ms
      timer = setTimeout(() => { if (!stopped) { setTriggerValue("changed", String(Date.now())); open(); } }, data.every);
      return;
    }
    const u = new URL(data.url, window.location.href);
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    u.searchParams.set("since", since);
    let opened = false;
    socket = new WebSocket(u);
    socket.onopen = () => { opened = true; };
    socket.onmessage = (ev) => { if (ev.data !== since) { since = ev.data; rerun(); } };
    socket.onclose = () => {  // tried again; a route never reached (a proxy that passes only the app's own paths)
      socket = null;          // leaves the page on the timer
      if (!opened) timed = true;
      if (!stopped) timer = setTimeout(open, timed ? 0 : data.every);
    };
  };
  open();
  return () => {
    stopped = true; clearTimeout(timer); clearTimeout(later);
    if (socket) { socket.onclose = null; socket.close(); }
  };
}
"""
_waiter = st.components.v2.component("andrea_class_wait", js=JS)  # hidden by its key's rule, below


def wait_on_class(code: str, topic: str, mark: str, key: str) -> None:
    """Rerun the calling fragment once ``topic`` of class ``code`` is no longer ``mark`` (``ClassStore.mark``, read
    by the caller just before it drew what the mark stands for)."""
    url = class_events.PATH + "?" + urlencode({"code": code, "topic": topic}) if class_events.SERVED else None
    _waiter(key=key, data={"url": url, "since": mark, "every": int(EVERY_S * 1000), "gap": int(GAP_S * 1000),
                         "hold": int(HOLD_S * 1000)}, height=0,
            on_changed_change=_nothing)
    st.html(f"<style>.st-key-{key} {{ display: none; }}</style>")  # its container too: no gap where it sits


def _nothing() -> None:
    """The trigger's callback: nothing to do, the fragment's rerun is the point."""
