"""The class in the app: the Class page (the teacher's view behind the key, the learner's join form), the one-call
hooks that send a joined learner's answers to the store, and "follow me" on the Lesson page.

Nothing here changes anything for a session that did not join a class: every hook returns at once.
A learner's page shows only that learner's own class and nickname; the teacher's view only counts.
"""

from __future__ import annotations

import io
import secrets
import time

import segno
import streamlit as st

from ..classroom import answers as A
from ..classroom.codes import JoinLimiter, client_of, normalise_code, well_formed
from ..classroom.keys import is_teacher_key, teacher_key
from ..classroom.store import ClassError, ClassStore, open_store
from ..i18n import Msg, _, language, listed, num, tr
from ..lexicon import ENGLISH, WORDS, word
from ..plots.classroom import grid_heatmap
from ..plots.style import for_projector
from ..safe_text import clean, md
from ..web import class_events
from . import url
from .charts import chart
from .class_wait import wait_on_class
from .errors import show_error
from .fragments import fragment
from .presenter import PROJECTOR_CSS
from .tables import shown_table

JOINED = "class:joined"  # session_state: (code, member id, nickname) of the class this tab joined
TEACHING = "class:teaching"  # session_state: the code of the class this tab teaches
TEACHER = "class:teacher"  # session_state: True once this tab gave the teacher key
GIVEN = "class:given"  # session_state: question -> the last answer sent (a choice is sent when it changes)
FOLLOWED = "class:followed"  # session_state: the presenter's step this tab last moved to
FOLLOWING = "class:following"  # session_state: this teacher's "follow me" is on (kept apart from the toggle's own
# key, which Streamlit forgets when the teacher opens another page)
SHOW_CSS = "<style>" + PROJECTOR_CSS + """
[data-testid="stElementContainer"]:has([data-testid="stHeading"] h1) { display: none !important; }
</style>"""  # "show the class" on a projector: the whole screen for the counts (no page title), text at 18 px
MAX_NICKNAME = 30

teacher_key()  # made (and written to the server's log) when the app starts, not when a teacher first asks


def address_code(raw: str) -> str | None:
    """A class code from the address (``?code=``, the QR code's link), as stored; None when it is not one."""
    code = normalise_code(raw)
    return code if well_formed(code) else None


@st.cache_resource(show_spinner=False)
def class_store() -> ClassStore:
    """The one store of this server (shared by every session, and by the class's route)."""
    store = open_store()
    class_events.use_store(store)
    return store


@st.cache_resource(show_spinner=False)
def join_limiter() -> JoinLimiter:
    return JoinLimiter()


def _client() -> str:
    """Who a failed join is counted against: the client's address, else this session."""
    try:
        peer, forwarded = st.context.ip_address, st.context.headers.get("X-Forwarded-For")
    except Exception:  # noqa: BLE001 - no request context (AppTest): the session stands for the client
        peer, forwarded = None, None
    ip = client_of(peer if isinstance(peer, str) else None, forwarded if isinstance(forwarded, str) else None)
    if ip:
        return ip
    return "session:" + st.session_state.setdefault("class:client", secrets.token_hex(8))


def _say_kept(sent: bool) -> None:
    if not sent:
        st.caption(_("Your teacher's database is away: this answer waits on the server and is sent when it is back."))


def _send(question: str, answer: str, category: str = "") -> None:
    """Send a joined learner's answer; a failure is one sentence under the widget, never an error of the page."""
    joined = st.session_state.get(JOINED)
    if not joined:
        return
    try:
        _say_kept(class_store().record(joined[0], joined[1], question, answer, category))
    except ClassError as exc:
        st.caption(tr(exc.msg, escape=md))
    st.session_state.setdefault(GIVEN, {})[question] = answer


# -- the hooks: one call each in the existing widgets
def give_sizing(size: str, typed: str | None) -> None:
    """The sizing exercise's Check: the typed answer and its category."""
    if st.session_state.get(JOINED):
        _send(A.sizing_question(size), *A.classify_sizing(typed or "", size))


def give_ordering(pairs, guesses: list[float]) -> None:
    """Predict similarity's reveal: the learner's guesses beside the real cosines (quiz.Pair objects)."""
    if st.session_state.get(JOINED):
        _send(A.PREDICT, A.encode_ordering([(p.a, p.b) for p in pairs], guesses, [p.cosine for p in pairs]))


def give_choice(step: str, choice: Msg | str) -> None:
    """A Lesson step's choice (sent when it changes): a Msg is sent as its msgid, so the teacher reads it in the
    teacher's language."""
    if not st.session_state.get(JOINED):
        return
    value = choice.msgid if isinstance(choice, Msg) else str(choice)
    if st.session_state.get(GIVEN, {}).get(f"lesson:{step}") != value:
        _send(f"lesson:{step}", value)


def pace(step_key: str, go_to) -> None:
    """On the Lesson page. A teacher who turned "follow me" on writes the step shown here; a joined learner's page
    waits on the presenter's step and moves to it (``go_to(step)``) while "follow me" is on."""
    teaching = st.session_state.get(TEACHING)
    if teaching and st.session_state.get(FOLLOWING):
        try:
            class_store().set_pacing(teaching, int(st.session_state[step_key]), True)
        except ClassError as exc:
            show_error(exc)
    elif st.session_state.get(JOINED):
        _follow(step_key, go_to)


@fragment
def _follow(step_key: str, go_to) -> None:
    code = st.session_state[JOINED][0]
    wait_on_class(code, "pacing", class_store().mark(code, "pacing"), key="class-wait-pacing")
    try:
        p = class_store().pacing(code)
    except ClassError:
        return  # the learner's page goes on; the mark says "away" until the database is back, then this runs again
    if p is None or not p.follow:
        st.session_state.pop(FOLLOWED, None)
        return
    st.caption(_("Your teacher leads: this page follows the presenter's step."))
    if st.session_state.get(FOLLOWED) != p.step or st.session_state.get(step_key) != p.step:
        st.session_state[FOLLOWED] = p.step
        if st.session_state.get(step_key) != p.step:
            go_to(p.step)
            st.rerun(scope="app")


# -- the Class page
def class_page() -> None:
    learner, teacher = st.tabs([_("Join a class"), _("Teach a class")])
    with learner:
        learner_view()
    with teacher:
        teacher_view()


def learner_view() -> None:
    joined = st.session_state.get(JOINED)
    if joined and not _still_open(joined[0]):
        st.info(_("Your class {code} has ended: your answers stay in this tab only.", code=joined[0]),
                icon=":material/info:")
        for k in (JOINED, GIVEN, FOLLOWED):
            st.session_state.pop(k, None)
        joined = None
    if joined:
        st.success(_("You are in class {code} as {nickname}. Your answers in the sizing exercise, Predict similarity "
                     "and the Lesson's steps go to your teacher, who sees the class's counts.", code=joined[0],
                     nickname=md(joined[2]) if joined[2] else _("an anonymous learner")), icon=":material/groups:")
        if st.button(_("Leave the class"), key="class:leave"):
            for k in (JOINED, GIVEN, FOLLOWED):
                st.session_state.pop(k, None)
            st.rerun()
        return
    st.markdown(_("Type the code your teacher shows. A nickname is optional; nothing else is asked."))
    with st.form("class:join-form", border=False):
        c1, c2 = st.columns(2)
        typed = c1.text_input(_("Class code"), value=url.read("code", "", parse=address_code), max_chars=20,
                              key="class:code")
        nick = c2.text_input(_("Nickname (optional)"), max_chars=MAX_NICKNAME, key="class:nickname")
        go = st.form_submit_button(_("Join"), type="primary")
    if go:
        try:
            join(typed, nick)
            st.rerun()
        except ClassError as exc:
            show_error(exc)


def _still_open(code: str) -> bool:
    try:
        return class_store().is_open(code)
    except ClassError:
        return True  # the database is away: the learner stays in the class, the answers wait


def join(typed: str, nickname: str) -> None:
    """Join the class ``typed`` names, or raise a ClassError with the sentence (a wrong, ended or expired code;
    too many wrong codes; this tab already in a class)."""
    if st.session_state.get(JOINED):
        raise ClassError(Msg("This tab is already in class {code}: leave it first.", code=st.session_state[JOINED][0]))
    limiter, client = join_limiter(), _client()
    wait = limiter.blocked_for(client)
    if wait > 0:
        raise ClassError(Msg("Too many wrong codes from here: try again in {s:.0f} seconds.", s=wait))
    code = normalise_code(typed)
    if not well_formed(code) or not class_store().is_open(code):
        limiter.failed(client)
        raise ClassError(Msg("No open class has the code “{code}”: check it with your teacher (a class that was ended "
                             "or is over a day old is closed).", code=typed.strip()[:20]))
    member = secrets.token_hex(8)
    nickname = " ".join(str(nickname).split())[:MAX_NICKNAME]
    class_store().join(code, member, nickname, language())
    st.session_state[JOINED] = (code, member, nickname)


def teacher_view() -> None:
    if not st.session_state.get(TEACHER):
        st.markdown(_("The teacher's view needs the teacher key: the server's ANDREA_VIZ_TEACHER_KEY, or the key it "
                      "wrote to its log when it started."))
        with st.form("class:key-form", border=False):
            typed = st.text_input(_("Teacher key"), type="password", key="class:key")
            ok = st.form_submit_button(_("Open the teacher's view"))
        if ok:
            if is_teacher_key(typed):
                st.session_state[TEACHER] = True
                st.rerun()
            else:
                st.error(_("That is not this server's teacher key: the teacher's view stays closed."),
                         icon=":material/lock:")
        return
    code = st.session_state.get(TEACHING)
    if code is None:
        if st.button(_("Start a class"), type="primary", key="class:start"):
            try:
                st.session_state[TEACHING] = class_store().start_class()
                st.rerun()
            except ClassError as exc:
                show_error(exc)
        reopen_form()
        return
    top = st.container(horizontal=True, vertical_alignment="center")
    show = top.toggle(_("Show the class"), key="class:show",
                      help=_("For the projector: only the anonymous counts, no code, no nicknames, no sidebar."))
    st.session_state["class:follow"] = bool(st.session_state.get(FOLLOWING))
    top.toggle(_("Follow me"), key="class:follow", on_change=_follow_changed, args=(code,),
               help=_("Every joined learner's Lesson page moves to the step your Lesson page shows."))
    if show:
        st.html(SHOW_CSS)
    else:
        try:
            top.download_button(_("Download the answers (CSV)"), data=_csv(code), file_name=f"class-{code}.csv",
                                mime="text/csv", key="class:csv")
        except ClassError as exc:
            show_error(exc)
        if top.button(_("End the class"), key="class:end", help=_("Deletes every answer and nickname of this class.")):
            try:
                class_store().end_class(code)
                for k in (TEACHING, FOLLOWING, "class:show"):
                    st.session_state.pop(k, None)
                st.rerun()
            except ClassError as exc:
                show_error(exc)
        _class_header(code)
    live_view(code, anonymous=show)


def reopen_form() -> None:
    """A class already running (started in another tab, or before the server restarted) opened by its code."""
    with st.form("class:reopen-form", border=False):
        typed = st.text_input(_("Or open a running class by its code"), max_chars=20, key="class:reopen")
        go = st.form_submit_button(_("Open the class"))
    if go:
        code = normalise_code(typed)
        try:
            if not well_formed(code) or not class_store().is_open(code):
                raise ClassError(Msg("No open class has the code “{code}”: check it with your teacher (a class that "
                                     "was ended or is over a day old is closed).", code=typed.strip()[:20]))
            st.session_state[TEACHING] = code
            st.rerun()
        except ClassError as exc:
            show_error(exc)


def _follow_changed(code: str) -> None:
    st.session_state[FOLLOWING] = bool(st.session_state.get("class:follow"))
    try:
        p = class_store().pacing(code)
        step = int(st.session_state.get("lesson:step", p.step if p else 1))  # the teacher's own Lesson step
        class_store().set_pacing(code, step, st.session_state[FOLLOWING])
    except ClassError:
        pass  # said on the page: the live view's mark turns "away", so it is drawn again with the sentence


def _csv(code: str) -> str:
    s = class_store()
    return A.answers_csv(s.answers(code), s.members(code))


def _class_header(code: str) -> None:
    c1, c2 = st.columns([4, 1])
    c1.markdown(_("Class code: **{code}**. Learners open the Class page, type it (or scan the QR code) and join.",
                  code=code))
    base = _base_url()
    qr = segno.make(f"{base}Class?code={code}" if base else code, error="m")
    buf = io.BytesIO()
    qr.save(buf, kind="png", scale=5, border=2)
    c2.image(buf.getvalue(), caption=_("Scan to join"), width=120)


def _base_url() -> str:
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - no request context (AppTest)
        return ""
    return url.split("?")[0].rsplit("/", 1)[0] + "/" if url.startswith("http") else ""


@fragment
def live_view(code: str, anonymous: bool) -> None:
    """The class's counts, drawn again when an answer is given or a learner joins: learners, each sizing question,
    the grid, the choices."""
    s = class_store()
    wait_on_class(code, "answers", s.mark(code, "answers"), key="class-wait-answers")
    try:
        rows, members = s.answers(code), s.members(code)
    except ClassError as exc:
        show_error(exc)
        return
    lang = language()
    # on the projector ("show the class") the counts and the grid side by side, so the grid is whole on a 1,280 × 720
    # screen; for the teacher's own view the tallies side by side, the grid under them
    left, right = st.columns([2, 3]) if anonymous else (st.container(), st.container())
    head = left.container(horizontal=True, vertical_alignment="bottom")
    head.metric(_("Learners in the class"), num(len(members)), width="content")
    if not anonymous and members:
        head.caption(_("Nicknames: {names}", names=listed(md(m.nickname) for m in members if m.nickname)
                       or _("none given")))
    if s.pending:
        left.caption(_("{n:,} answers wait on this server for the database.", n=s.pending))
    for col, size in zip((left, left) if anonymous else left.columns(2), ("ANDREA-480M", "ANDREA-12M"), strict=True):
        q = A.sizing_question(size)
        counts = A.tally(rows, q)
        col.markdown(_("**Sizing exercise, {model}**: {n} answers", model=size, n=sum(counts.values())))
        if counts:
            shown_table([{_("answer"): tr(A.CATEGORY_LABELS[c]), _("learners"): counts.get(c, 0)}
                         for c in A.SIZING_CATEGORIES], col, anonymous)
            for ans, cat, n in A.common_wrong(rows, q):
                col.markdown(_("**{answer}**: {meaning} (learners: {n})", answer=num(int(ans)) if ans.isdigit()
                               else md(ans), n=n, meaning=tr(A.meaning(cat))))
    grid = A.misconception_grid(rows)
    right.markdown(_("**Predict similarity**: {n} orderings", n=grid.learners))
    if grid.learners:
        labels = [f"{_in_language(a, lang)} / {_in_language(b, lang)}" for a, b in grid.pairs]
        c1, c2 = (right, left) if anonymous else right.columns([3, 2])  # projected: the pairs most wrong go left
        fig = grid_heatmap(grid, labels)
        chart(for_projector(fig) if anonymous else fig, key="class:grid", where=c1)  # projected: no text under 18 px
        if not anonymous:  # the teacher's note; projected, the room under the tallies goes to the pairs most wrong
            c1.caption(_("Each learner's order is judged by the cosines of the model grown in that learner's language, "
                         "so learners in two languages can be wrong about one pair in opposite directions."))
        for hi, lo, n, of in grid.worst(2 if anonymous else 3):  # projected: the two that fit the screen
            c2.markdown(_("{n} of {of} learners put **{high}** closer than **{low}**.", n=n, of=of,
                          high=md(labels[grid.pairs.index(hi)]), low=md(labels[grid.pairs.index(lo)])))
    choices = sorted({a.question for a in rows if a.question.startswith("lesson:")})
    for col, q in zip(st.columns(max(1, len(choices))), choices, strict=False):
        col.markdown(_("**Lesson step “{step}”**", step=md(q.split(":", 1)[1])))
        shown_table([{_("answer"): clean(tr(ans)), _("learners"): n} for ans, n in A.tally(rows, q).most_common()],
                    col, anonymous)
    st.caption(_("Live: drawn again as soon as a learner joins or answers (last at {t}).", t=time.strftime("%H:%M:%S")))


def _in_language(english: str, lang: str) -> str:
    """One of the lesson's words (stored by its English name) in the teacher's language; any other word as stored."""
    return word(lang, english) if english in WORDS[ENGLISH] else english

