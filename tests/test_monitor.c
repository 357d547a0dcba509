/*
 * test_monitor.c: monitors, and senders that never stall on a paused or restarting receiver,
 * with real scripts in a temporary folder and a headless runtime.
 *
 * Monitors: a system that calls ona.monitor(h) (ona_ctx_monitor from C) gets, from the sender
 * ona.runtime, ("paused", h, reason), ("resumed", h), ("restarted", h, reason) and ("ended", h,
 * reason), in order; a restart runs init again with the spawn's args; a stale handle gets
 * "ended" at once.
 *
 * Held receivers: while a receiver is paused its senders are never parked (they run every frame),
 * everything they sent arrives in order after the fix, and past its memory cap a send fails at
 * the sender naming the receiver and why. A sender that does wait on a full mailbox is named,
 * 30 frames into its wait, with why the receiver does not drain.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("monitor");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime_with(ona_runtime_desc desc) {
    const char *roots[] = {game_dir(), NULL};
    desc.script_roots = roots;
    desc.video = ONA_VIDEO_NONE;
    if (!desc.threads)
        desc.threads = 2;
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "%s\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

static void step(ona_runtime *rt, int frames) {
    for (int i = 0; i < frames; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static int count_tagged(const char *tag) {
    int n = 0;
    for (int i = 0; i < coll->count; i++)
        n += coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0;
    return n;
}

/* The index of the n-th (0-based) item tagged `tag`, or -1. */
static int nth_tagged(const char *tag, int n) {
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0 &&
            n-- == 0)
            return i;
    return -1;
}

/* Steps frames (with a pause for file events) until `tag` was collected `n` times. */
static void step_until_count(ona_runtime *rt, const char *tag, int n) {
    for (int i = 0; i < 400 && count_tagged(tag) < n; i++) {
        step(rt, 1);
        usleep(2000);
    }
    ck_assert_msg(count_tagged(tag) >= n, "saw %s %d times, not %d\n%s\nlog:\n%s", tag,
                  count_tagged(tag), n, collected_text(), captured_logs_text());
}

/* Monitors `watch` (a name, or a handle) and forwards every notice from ona.runtime to the
 * report: ("notice", what, handle, reason). */
static const char *WATCHER = "return {\n"
                             "  init = function(state, args)\n"
                             "    state.report = args.report\n"
                             "    ona.monitor(tonumber(args.watch) or ona.lookup(args.watch))\n"
                             "  end,\n"
                             "  process = function(state)\n"
                             "    for from, what, h, reason in ona.messages() do\n"
                             "      if from == ona.runtime then\n"
                             "        ona.send(state.report, 'notice', what, h, reason or '-')\n"
                             "      end\n"
                             "    end\n"
                             "  end,\n"
                             "}\n";

/* The n-th notice is (what, subject, reason); reason NULL: "-". */
static void assert_notice(int n, const char *what, ona_system subject, const char *reason) {
    int at = nth_tagged("notice", n);
    ck_assert_msg(at >= 0 && at + 3 < coll->count, "no notice %d\n%s", n, collected_text());
    ck_assert_str_eq(coll->items[at + 1].text, what);
    ck_assert_msg(coll->items[at + 2].number == (double)subject.id, "notice %d names %g, not %llu",
                  n, coll->items[at + 2].number, (unsigned long long)subject.id);
    if (reason)
        ck_assert_msg(strstr(coll->items[at + 3].text, reason) != NULL,
                      "notice %d (%s): reason '%s' lacks '%s'", n, what, coll->items[at + 3].text,
                      reason);
    else
        ck_assert_str_eq(coll->items[at + 3].text, "-");
}

/* --- Monitors -------------------------------------------------------------------------------- */

/* Fails at its second turn, every life; each init reports the spawn args it got. */
static const char *FAILS_SECOND =
    "return {\n"
    "  init = function(state, args) state.n = 0; ona.send(args.report, 'init', args.x) end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    if state.n == 2 then error('boom') end\n"
    "  end,\n"
    "}\n";

START_TEST(test_monitor_restarts_then_end_in_order_with_init_args) {
    game_write("subject.lua", FAILS_SECOND);
    game_write("watcher.lua", WATCHER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system report = spawn_collector(rt);
    ona_system subject = spawn_lua(rt, "subject.lua", "subject", report, "x=7", 0, 0);
    spawn_lua(rt, "watcher.lua", "watcher", report, "watch=subject", 0, 0);
    step_until_count(rt, "notice", 4);
    step(rt, 3);
    /* Three restarts (the default limit), then the fourth failure stops it. */
    ck_assert_int_eq(count_tagged("notice"), 4);
    assert_notice(0, "restarted", subject, "subject.lua:5: boom");
    assert_notice(1, "restarted", subject, "subject.lua:5: boom");
    assert_notice(2, "restarted", subject, "subject.lua:5: boom");
    assert_notice(3, "ended", subject, "stopped (it failed past its restart limit): /");
    assert_notice(3, "ended", subject, "/subject.lua:5: boom");
    /* Each life ran init with the spawn's args. */
    ck_assert_int_eq(count_tagged("init"), 4);
    for (int i = 0; i < 4; i++)
        ck_assert(coll->items[nth_tagged("init", i) + 1].number == 7);
    /* Each "restarted" reached the watcher before the new life's init reported: a peer that
     * re-sends its setup on "restarted" is in time for the fresh state's first turn. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_lt(nth_tagged("init", i), nth_tagged("notice", i));
    ona_runtime_destroy(rt);
}
END_TEST

static const char *SUBJECT_V1 = "return {\n"
                                "  process = function(state) state.n = (state.n or 0) + 1 end,\n"
                                "}\n";
static const char *SUBJECT_BROKEN = "return {\n"
                                    "  process = function(state)\n"
                                    "    local ball = nil\n"
                                    "    state.n = ball.speed\n"
                                    "  end,\n"
                                    "}\n";

START_TEST(test_monitor_pause_resume_and_kill) {
    game_write("subject.lua", SUBJECT_V1);
    game_write("watcher.lua", WATCHER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.hot_reload = true});
    ona_system report = spawn_collector(rt);
    ona_system subject = spawn_lua(rt, "subject.lua", "subject", report, "", 0, 0);
    spawn_lua(rt, "watcher.lua", "watcher", report, "watch=subject", 0, 0);
    step(rt, 3);
    game_write("subject.lua", SUBJECT_BROKEN);
    step_until_count(rt, "notice", 1);
    assert_notice(0, "paused", subject, "subject.lua:4: attempt to index");
    game_write("subject.lua", SUBJECT_V1);
    step_until_count(rt, "notice", 2);
    assert_notice(1, "resumed", subject, NULL);
    ck_assert_int_eq(ona_runtime_kill(rt, subject), 0);
    step(rt, 3);
    ck_assert_int_eq(count_tagged("notice"), 3);
    assert_notice(2, "ended", subject, "killed");
    ona_runtime_destroy(rt);
}
END_TEST

/* Monitors a handle that ended earlier: "ended" at once, naming it. */
START_TEST(test_monitor_of_an_ended_handle_gets_ended_at_once) {
    game_write("subject.lua", SUBJECT_V1);
    game_write("watcher.lua", WATCHER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system report = spawn_collector(rt);
    ona_system subject = spawn_lua(rt, "subject.lua", "subject", report, "", 0, 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_kill(rt, subject), 0);
    step(rt, 1);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "watch=%llu", (unsigned long long)subject.id);
    spawn_lua(rt, "watcher.lua", "watcher", report, pairs, 0, 0);
    step(rt, 3); /* its first turn asks, the next reads, the collector's next gets it */
    ck_assert_int_eq(count_tagged("notice"), 1);
    assert_notice(0, "ended", subject, "'subject' had ended before it was monitored");
    ona_runtime_destroy(rt);
}
END_TEST

/* The pattern the platformer's post.lua shows: a peer sends setup once, monitors the receiver
 * and sends it again on "restarted"; every life of the receiver (after the peer in the order)
 * has the setup at its first turn. */
static const char *SETUP_PEER =
    "return {\n"
    "  init = function(state)\n"
    "    state.worker = ona.lookup('worker')\n"
    "    ona.monitor(state.worker)\n"
    "    ona.send(state.worker, 'setup', 42)\n"
    "  end,\n"
    "  process = function(state)\n"
    "    for from, what, h in ona.messages() do\n"
    "      if from == ona.runtime and what == 'restarted' then ona.send(h, 'setup', 42) end\n"
    "    end\n"
    "  end,\n"
    "}\n";
/* Reports what setup it had at each turn; fails at its third turn, every life. */
static const char *WORKER =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.turns = 0 end,\n"
    "  process = function(state)\n"
    "    for _, what, v in ona.messages() do if what == 'setup' then state.setup = v end end\n"
    "    state.turns = state.turns + 1\n"
    "    ona.send(state.report, 'has', state.setup or -1, state.turns)\n"
    "    if state.turns == 3 then error('worn out') end\n"
    "  end,\n"
    "}\n";

START_TEST(test_monitor_setup_sent_again_on_restarted) {
    game_write("setup.lua", SETUP_PEER);
    game_write("worker.lua", WORKER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system report = spawn_collector(rt);
    ona_message args = make_args(report, "");
    const char *after[] = {"setup"};
    ona_spawn_desc w = {.script = "worker.lua",
                        .name = "worker",
                        .args = &args,
                        .after_names = after,
                        .after_name_count = 1};
    ona_system worker;
    ck_assert_int_eq(ona_runtime_spawn(rt, &w, &worker), 0);
    spawn_lua(rt, "setup.lua", "setup", report, "", 0, 0);
    step(rt, 40);
    /* Four lives (three restarts) of three turns each, every turn with the setup. */
    ck_assert_int_eq(count_tagged("has"), 12);
    for (int i = 0; i < 12; i++) {
        int at = nth_tagged("has", i);
        ck_assert_msg(coll->items[at + 1].number == 42, "turn %d of a life had no setup\n%s",
                      i % 3 + 1, collected_text());
        ck_assert(coll->items[at + 2].number == i % 3 + 1);
    }
    ona_runtime_destroy(rt);
}
END_TEST

/* A C system monitors through ona_ctx_monitor and reads the notices' sender and values. */
typedef struct native_watch {
    ona_system target;
    bool asked;
    int notices;
    uint64_t sender;
    char what[32];
    double handle;
    char reason[64];
} native_watch;

static int native_watch_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    native_watch *w = ona_ctx_user(ctx);
    (void)state;
    if (!w->asked) {
        w->asked = true;
        ck_assert_int_eq(ona_ctx_monitor(ctx, w->target), 0);
        ck_assert_int_eq(ona_ctx_monitor(ctx, w->target), 0); /* twice is once */
    }
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        w->notices++;
        w->sender = ona_message_sender(m);
        ona_message_reader r;
        ona_message_reader_begin(&r, m);
        ona_value v;
        ona_message_read(&r, &v);
        snprintf(w->what, sizeof w->what, "%s",
                 v.type == ONA_VALUE_STRING ? v.as.string.bytes : "");
        ona_message_read(&r, &v);
        w->handle = v.type == ONA_VALUE_NUMBER ? v.as.number : -1;
        ona_message_read(&r, &v);
        snprintf(w->reason, sizeof w->reason, "%s",
                 v.type == ONA_VALUE_STRING ? v.as.string.bytes : "");
    }
    return 0;
}

START_TEST(test_monitor_from_c) {
    game_write("subject.lua", SUBJECT_V1);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system none = {0};
    ona_system subject = spawn_lua(rt, "subject.lua", "subject", none, "", 0, 0);
    native_watch w = {.target = subject};
    ona_system_desc d = {.name = "native_watch", .process = native_watch_process, .user = &w};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
    step(rt, 2);
    ck_assert_int_eq(ona_runtime_kill(rt, subject), 0);
    step(rt, 3);
    ck_assert_int_eq(w.notices, 1);
    ck_assert(w.sender == ONA_SENDER_RUNTIME);
    ck_assert_str_eq(w.what, "ended");
    ck_assert(w.handle == (double)subject.id);
    ck_assert_str_eq(w.reason, "killed");
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Held receivers -------------------------------------------------------------------------- */

/* Fails at its first turn, line 2, before taking anything. */
static const char *RECEIVER_BROKEN = "return {\n"
                                     "  process = function(state) error('not written yet') end,\n"
                                     "}\n";

/* Checks per-sender order (each sends 1, 2, 3...) and reports the count and the faults. */
static const char *RECEIVER_FIXED =
    "return {\n"
    "  process = function(state)\n"
    "    state.count, state.bad, state.last = state.count or 0, state.bad or 0, state.last or {}\n"
    "    for from, n in ona.messages() do\n"
    "      state.count = state.count + 1\n"
    "      if n ~= (state.last[from] or 0) + 1 then state.bad = state.bad + 1 end\n"
    "      state.last[from] = n\n"
    "    end\n"
    "    ona.send(ona.lookup('collector'), 'took', state.count, state.bad)\n"
    "  end,\n"
    "}\n";

/* 10 messages a frame for 300 frames; reports its turn count and frame at its 300th turn. */
static const char *STEADY_SENDER =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0; state.turns = 0 end,\n"
    "  process = function(state)\n"
    "    state.turns = state.turns + 1\n"
    "    if state.turns <= 300 then\n"
    "      local to = ona.lookup('receiver')\n"
    "      for _ = 1, 10 do state.n = state.n + 1; ona.send(to, state.n) end\n"
    "    end\n"
    "    if state.turns == 300 then ona.send(state.report, 'turns', state.turns, ona.frame()) end\n"
    "  end,\n"
    "}\n";

START_TEST(test_monitor_paused_receiver_never_stalls_its_senders) {
    game_write("receiver.lua", RECEIVER_BROKEN);
    game_write("sender.lua", STEADY_SENDER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.hot_reload = true});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 0, 0);
    const char *names[] = {"s1", "s2", "s3"};
    for (int i = 0; i < 3; i++)
        spawn_lua(rt, "sender.lua", names[i], report, "", 0, 0);
    step(rt, 301); /* what the 300th turns report arrives at the collector's next turn */
    ck_assert_int_eq(named_stats(rt, "receiver").status, ONA_SYSTEM_PAUSED);
    /* Each sender ran its 300 turns in the first 300 frames: none waited a frame. */
    ck_assert_msg(count_tagged("turns") == 3, "%s\nlog:\n%s", collected_text(),
                  captured_logs_text());
    for (int i = 0; i < 3; i++) {
        int at = nth_tagged("turns", i);
        ck_assert(coll->items[at + 1].number == 300);
        ck_assert(coll->items[at + 2].number == 300);
        ona_system_stats st = named_stats(rt, names[i]);
        ck_assert_uint_eq(st.parks, 0);
        ck_assert_uint_eq(st.errors, 0);
    }
    ck_assert_uint_eq(named_stats(rt, "receiver").mailbox_size, 9000);
    ck_assert(!captured_logs_contain("has waited"));
    game_write("receiver.lua", RECEIVER_FIXED);
    step_until_count(rt, "took", 1);
    /* Its first turn after the fix took every message, each sender's in order. */
    int at = nth_tagged("took", 0);
    ck_assert_msg(coll->items[at + 1].number == 9000, "took %g", coll->items[at + 1].number);
    ck_assert(coll->items[at + 2].number == 0);
    ck_assert_uint_eq(named_stats(rt, "receiver").mailbox_size, 0);
    ona_runtime_destroy(rt);
}
END_TEST

/* Sends 4 KB strings to the paused receiver until a send fails; reports how many went and the
 * error. */
static const char *BIG_SENDER =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.sent = 0 end,\n"
    "  process = function(state)\n"
    "    if state.done then return end\n"
    "    local to, big = ona.lookup('receiver'), string.rep('x', 4096)\n"
    "    for _ = 1, 200 do\n"
    "      local ok, err = pcall(ona.send, to, state.sent + 1, big)\n"
    "      if not ok then\n"
    "        state.done = true\n"
    "        ona.send(state.report, 'refused', state.sent, err, err:match('what was queued.*'))\n"
    "        return\n"
    "      end\n"
    "      state.sent = state.sent + 1\n"
    "    end\n"
    "  end,\n"
    "}\n";

START_TEST(test_monitor_paused_receiver_bounded_by_its_memory_cap) {
    game_write("receiver.lua", RECEIVER_BROKEN);
    game_write("big.lua", BIG_SENDER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.hot_reload = true});
    ona_system report = spawn_collector(rt);
    ona_message args = make_args(report, "");
    ona_spawn_desc d = {
        .script = "receiver.lua", .name = "receiver", .args = &args, .memory_cap = (size_t)4 << 20};
    ona_system receiver;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &receiver), 0);
    spawn_lua(rt, "big.lua", "big", report, "", 0, 0);
    step_until_count(rt, "refused", 1);
    int at = nth_tagged("refused", 0);
    double sent = coll->items[at + 1].number;
    /* About 4 MiB of 4 KB messages went; the next one was refused at the sender, by name. */
    ck_assert_msg(sent >= 400 && sent <= 1024, "%g sent", sent);
    ck_assert_msg(strstr(coll->items[at + 2].text,
                         "/big.lua:7: ona.send: 'receiver' is paused by an error at /") &&
                      strstr(coll->items[at + 2].text, "/receiver.lua:2 (save a fix to resume it)"),
                  "%s", coll->items[at + 2].text);
    ck_assert_str_eq(coll->items[at + 3].text, "what was queued for it meanwhile reached its "
                                               "memory cap (4194304 bytes): the message was not "
                                               "sent");
    ck_assert_uint_le(named_stats(rt, "big").parks, 1); /* in frame 1, before the receiver failed */
    ck_assert_uint_eq(named_stats(rt, "receiver").mailbox_size, (uint32_t)sent);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Why a full mailbox does not drain ------------------------------------------------------- */

/* Sends three numbers a turn to `to`, waiting when its mailbox is full. */
static const char *PUSHER = "return {\n"
                            "  init = function(state, args) state.to = args.to end,\n"
                            "  process = function(state)\n"
                            "    local to = ona.lookup(state.to)\n"
                            "    for i = 1, 3 do ona.send(to, i) end\n"
                            "  end,\n"
                            "}\n";
static const char *DEAF = "return { process = function(state) end }\n";
/* Receives in its first two turns, then never again. */
static const char *QUITTER = "return {\n"
                             "  process = function(state)\n"
                             "    state.t = (state.t or 0) + 1\n"
                             "    if state.t <= 2 then for _ in ona.messages() do end end\n"
                             "  end,\n"
                             "}\n";

static void warned_within_35_frames(ona_runtime *rt, const char *text) {
    step(rt, 35);
    ck_assert_msg(captured_logs_contain(text), "no '%s' in:\n%s", text, captured_logs_text());
}

START_TEST(test_monitor_full_mailbox_warning_says_never_receives_or_waits) {
    game_write("pusher.lua", PUSHER);
    game_write("deaf.lua", DEAF);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system none = {0};
    spawn_lua(rt, "deaf.lua", "deaf", none, "", 2, 0);
    spawn_lua(rt, "pusher.lua", "middle", none, "to=deaf", 2, 0);
    spawn_lua(rt, "pusher.lua", "front", none, "to=middle", 0, 0);
    warned_within_35_frames(rt, "middle: has waited 30 frames to send to 'deaf', whose mailbox "
                                "is full (capacity 2): 'deaf' never receives (none of its turns "
                                "has asked for a message)");
    ck_assert_msg(captured_logs_contain("front: has waited 30 frames to send to 'middle', whose "
                                        "mailbox is full (capacity 2): 'middle' is itself waiting "
                                        "to send to 'deaf'"),
                  "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_monitor_full_mailbox_warning_says_stopped_receiving) {
    game_write("pusher.lua", PUSHER);
    game_write("quitter.lua", QUITTER);
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){0});
    ona_system none = {0};
    spawn_lua(rt, "quitter.lua", "quitter", none, "", 2, 0);
    spawn_lua(rt, "pusher.lua", "pusher", none, "to=quitter", 0, 0);
    step(rt, 60);
    ck_assert_msg(captured_logs_contain("to send to 'quitter', whose mailbox is full (capacity "
                                        "2): 'quitter' has not asked for a message since frame 2"),
                  "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* Under immediate delivery senders still wait on a paused or restarting receiver: the warning
 * says which. */
/* Under immediate delivery senders still wait on a paused or restarting receiver: the warning
 * says which. The pusher fills the mailbox of 4 in its second turn and waits from there. */
START_TEST(test_monitor_full_mailbox_warning_says_paused_at_file_line) {
    game_write("receiver.lua", RECEIVER_BROKEN);
    game_write("pusher.lua", PUSHER);
    ona_runtime *rt = make_runtime_with(
        (ona_runtime_desc){.hot_reload = true, .delivery = ONA_DELIVERY_IMMEDIATE});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 4, 0);
    spawn_lua(rt, "pusher.lua", "pusher", report, "to=receiver", 0, 0);
    warned_within_35_frames(rt, "pusher: has waited 30 frames to send to 'receiver', whose mailbox "
                                "is full (capacity 4): 'receiver' is paused by an error at /");
    ck_assert(captured_logs_contain("/receiver.lua:2 (save a fix to resume it)"));
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_monitor_full_mailbox_warning_says_restarting) {
    game_write("receiver.lua", RECEIVER_BROKEN);
    game_write("pusher.lua", PUSHER);
    ona_runtime *rt = make_runtime_with(
        (ona_runtime_desc){.restart_backoff_frames = 100, .delivery = ONA_DELIVERY_IMMEDIATE});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 4, 0);
    spawn_lua(rt, "pusher.lua", "pusher", report, "to=receiver", 0, 0);
    warned_within_35_frames(rt, "pusher: has waited 30 frames to send to 'receiver', whose mailbox "
                                "is full (capacity 4): 'receiver' is restarting after an error "
                                "(in 69 frames)");
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *monitor_suite(void) {
    Suite *s = suite_create("monitor");
    TCase *tc = tcase_create("monitor");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_monitor_restarts_then_end_in_order_with_init_args);
    tcase_add_test(tc, test_monitor_pause_resume_and_kill);
    tcase_add_test(tc, test_monitor_of_an_ended_handle_gets_ended_at_once);
    tcase_add_test(tc, test_monitor_setup_sent_again_on_restarted);
    tcase_add_test(tc, test_monitor_from_c);
    tcase_add_test(tc, test_monitor_paused_receiver_never_stalls_its_senders);
    tcase_add_test(tc, test_monitor_paused_receiver_bounded_by_its_memory_cap);
    tcase_add_test(tc, test_monitor_full_mailbox_warning_says_never_receives_or_waits);
    tcase_add_test(tc, test_monitor_full_mailbox_warning_says_stopped_receiving);
    tcase_add_test(tc, test_monitor_full_mailbox_warning_says_paused_at_file_line);
    tcase_add_test(tc, test_monitor_full_mailbox_warning_says_restarting);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(monitor_suite());
}
