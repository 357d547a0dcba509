/*
 * retake.c: what a turn took, kept so that the turn can be run again after it failed (the
 * re-run of edit and continue, lifecycle.c).
 *
 * Design note.
 *  - Only a system that pauses when its turn fails keeps anything (ona__core_pauses: files are
 *    watched, a Lua system). Each message its turn takes (ona__actor_receive, any delivery mode)
 *    is copied into `kept` as it is handed over; the copy keeps the sender, shares strings and
 *    copies buffers, because decoding moves the original's out.
 *  - A turn that ends lets its copies go. A turn that fails keeps them: the system pauses, and
 *    the turn run after the fix takes the copies first, in the order the failed turn took them,
 *    then whatever the stage or mailbox holds (what the failed turn left and what came since).
 *    The re-run hands out copies of the copies, so a re-run that fails again keeps them all.
 *  - At-least-once: what the failed turn sent, drew or played before its error stays done; the
 *    re-run does it again.
 *  - A copy that cannot be made (out of memory) is logged; the re-run misses that message.
 */
#include "core.h"

void ona__retake_start(ona__system *sys) {
    sys->keeping = ona__core_pauses(sys->core, sys);
    sys->kept_next = 0;
    if (!sys->keeping)
        ona__retake_end(sys, false);
}

int ona__retake_take(ona__system *sys) {
    if (sys->kept_next >= sys->kept_count)
        return ONA_EEMPTY;
    ona_message_release(&sys->inbox);
    ona_message *kept = &sys->kept[sys->kept_next++];
    if (ona__message_duplicate(kept, &sys->inbox) != 0) {
        /* No memory for another copy: this run gets the kept one, a later re-run not. */
        ona_log(ONA_LOG_WARN, sys->name,
                "out of memory copying a message for the re-run: a later re-run will miss it");
        sys->inbox = *kept;
        ona_message_init(kept);
    }
    return 0;
}

void ona__retake_keep(ona__system *sys) {
    if (!sys->keeping)
        return;
    if (sys->kept_count == sys->kept_cap) {
        uint32_t cap = sys->kept_cap ? 2 * sys->kept_cap : 8;
        ona_message *p = ona__realloc(sys->kept, (size_t)cap * sizeof *p);
        if (!p) {
            ona_log(ONA_LOG_WARN, sys->name,
                    "out of memory keeping a message for a re-run: a re-run would miss it");
            return;
        }
        sys->kept = p;
        sys->kept_cap = cap;
    }
    if (ona__message_duplicate(&sys->inbox, &sys->kept[sys->kept_count]) != 0) {
        ona_log(ONA_LOG_WARN, sys->name,
                "out of memory keeping a message for a re-run: a re-run would miss it");
        return;
    }
    sys->kept_next = ++sys->kept_count;
}

void ona__retake_end(ona__system *sys, bool failed) {
    if (failed && sys->keeping)
        return;
    for (uint32_t i = 0; i < sys->kept_count; i++)
        ona_message_release(&sys->kept[i]);
    sys->kept_count = sys->kept_next = 0;
}

void ona__retake_free(ona__system *sys) {
    sys->keeping = false;
    ona__retake_end(sys, false);
    ona__free(sys->kept);
    sys->kept = NULL;
    sys->kept_cap = 0;
}
