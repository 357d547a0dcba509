/*
 * The launcher's screenshot checks: before the run, that the --screenshot path can become a PNG
 * file; after it, that the file was really written, and if not, why.
 *
 * Design note. The runtime only logs a failed PNG write, so the launcher looks at the file
 * itself: it notes the file before the run (ona__launcher_file_before_get) and counts it as
 * written only when it is a non-empty regular file that is new or changed since. The check
 * before the run only saves running a game for nothing; the one after it decides.
 */
#include "launcher.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Refuses, before anything runs, a screenshot path that cannot become a PNG file: a folder or
 * another file that is not a regular one, or a path whose folder is missing or not writable.
 * The runtime only logs a failed write, so the end of the run checks the file itself
 * (shot_written); this check only saves running a game for nothing. */
bool ona__launcher_shot_path_usable(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "ona: cannot write the screenshot to '%s': %s\n", path,
                S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file");
        return false;
    }
    char dir[MAX_PATH_BYTES + 1];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    const char *why = NULL;
    if (stat(dir, &st) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a folder";
    else if (access(dir, W_OK | X_OK) != 0)
        why = strerror(errno);
    if (why)
        fprintf(stderr, "ona: cannot write the screenshot to '%s': '%s': %s\n", path, dir, why);
    return !why;
}

ona__launcher_file_before ona__launcher_file_before_get(const char *path) {
    ona__launcher_file_before b = {0};
    b.exists = stat(path, &b.st) == 0;
    return b;
}

/* True when `path` is a non-empty regular file that the run wrote: new, or changed since
 * `before` (the PNG writer truncates and rewrites, so the modification time moves). */
static bool shot_written(const char *path, const ona__launcher_file_before *before) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return false;
    if (!before->exists)
        return true;
    return st.st_dev != before->st.st_dev || st.st_ino != before->st.st_ino ||
           st.st_size != before->st.st_size || st.st_mtim.tv_sec != before->st.st_mtim.tv_sec ||
           st.st_mtim.tv_nsec != before->st.st_mtim.tv_nsec;
}

/* Says why no screenshot is at `path`, if none is; true when it was written. */
bool ona__launcher_shot_check(const char *path, long frames, const ona__launcher_shot *s,
                              const ona__launcher_file_before *before) {
    if (!s->requested)
        fprintf(stderr,
                "ona: no screenshot written to '%s': the game stopped after %ld of %ld "
                "frames\n",
                path, s->frames_run, frames);
    else if (s->rc == ONA_EGFX)
        fprintf(stderr, "ona: no screenshot written to '%s': there is no video\n", path);
    else if (s->rc)
        fprintf(stderr, "ona: no screenshot written to '%s': %s\n", path, ona_strerror(s->rc));
    else if (!shot_written(path, before))
        fprintf(stderr, "ona: the screenshot was not written to '%s' (see the error above)\n",
                path);
    else
        return true;
    return false;
}
