/*
 * pack.c: `ona pack <game-folder> -o <game.ona>`: the game folder as one zip file, which `ona
 * game.ona` runs with nothing of the folder beside it (the runtime mounts the archive on
 * PhysicsFS and every loader reads from it).
 *
 * Design note. Every regular file under the folder goes in, named by its path relative to the
 * folder with '/' separators, in byte order of those names, each with the same timestamp, so the
 * same folder packs into the same bytes. Folders are walked but not stored (PhysicsFS infers
 * them from the names). A symbolic link is packed as the file it names when that lies inside the
 * folder, and refused otherwise, as the runtime refuses it. Version-control folders (".git",
 * ".hg", ".svn") and the output file itself are left out. Nothing is written unless the whole
 * folder could be read: libzip writes a temporary file and renames it at zip_close.
 *
 * Fused (`--fused`): the output is this launcher's own executable with the zip appended, one
 * program that runs the game (PhysicsFS, like LÖVE's fused games, mounts a zip with data before
 * it). The launcher knows itself fused when its file ends with a zip's end record
 * (ona__launcher_fused).
 */
#include "launcher.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

enum { MAX_ENTRIES = 65536 };

typedef struct pack_list {
    char **names; /* relative to the game folder */
    size_t count, capacity;
} pack_list;

static bool skipped_folder(const char *name) {
    return strcmp(name, ".git") == 0 || strcmp(name, ".hg") == 0 || strcmp(name, ".svn") == 0;
}

static bool inside(const char *real, const char *root) {
    size_t n = strlen(root);
    return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static int add_name(pack_list *l, const char *rel) {
    if (l->count >= MAX_ENTRIES) {
        fprintf(stderr, "ona pack: more than %d files\n", MAX_ENTRIES);
        return -1;
    }
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? l->capacity * 2 : 64;
        char **grown = realloc(l->names, cap * sizeof *grown);
        if (!grown)
            return -1;
        l->names = grown;
        l->capacity = cap;
    }
    l->names[l->count] = strdup(rel);
    return l->names[l->count++] ? 0 : -1;
}

/* Lists the files under root/rel ("" for the top) into l. */
static int walk(const char *root, const char *rel, const char *skip_real, pack_list *l) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "ona pack: cannot read the folder '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            skipped_folder(e->d_name))
            continue;
        char child[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
        int n = snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        int m = snprintf(path, sizeof path, "%s/%s", root, child);
        if (n < 0 || (size_t)n >= sizeof child || m < 0 || (size_t)m >= sizeof path) {
            fprintf(stderr, "ona pack: the path of '%s' is too long\n", e->d_name);
            rc = -1;
            break;
        }
        struct stat st;
        if (!realpath(path, real) || stat(real, &st) != 0) {
            fprintf(stderr, "ona pack: '%s' cannot be read: %s\n", path, strerror(errno));
            rc = -1;
        } else if (!inside(real, root)) {
            fprintf(stderr,
                    "ona pack: '%s' is a link to '%s', outside the game folder (a game reads "
                    "only its own files)\n",
                    path, real);
            rc = -1;
        } else if (skip_real && strcmp(real, skip_real) == 0) {
            continue; /* the archive being written, inside the folder */
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(root, child, skip_real, l);
        } else if (S_ISREG(st.st_mode)) {
            rc = add_name(l, child);
        }
    }
    closedir(d);
    return rc;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the file `from` to the open `to`; false on a failure (reported). */
static bool append_file(FILE *to, const char *from) {
    FILE *f = fopen(from, "rb");
    if (!f) {
        fprintf(stderr, "ona pack: cannot read '%s': %s\n", from, strerror(errno));
        return false;
    }
    char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = fwrite(buf, 1, n, to) == n;
    ok = ok && !ferror(f);
    fclose(f);
    return ok;
}

/* `out` = this executable + the zip at `zip` (removed), executable. 0, or -1 (reported). */
static int fuse(const char *zip, const char *out) {
    char self[PATH_MAX], tmp[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "ona pack: cannot find the launcher's own file: %s\n", strerror(errno));
        return -1;
    }
    self[n] = '\0';
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *to = fopen(tmp, "wb");
    bool ok = to && append_file(to, self) && append_file(to, zip);
    if (to && fclose(to) != 0)
        ok = false;
    ok = ok && chmod(tmp, 0755) == 0 && rename(tmp, out) == 0;
    if (!ok) {
        fprintf(stderr, "ona pack: cannot write '%s': %s\n", out, strerror(errno));
        unlink(tmp);
    }
    unlink(zip);
    return ok ? 0 : -1;
}

bool ona__launcher_fused(char *path, size_t size) {
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    if (n <= 0)
        return false;
    path[n] = '\0';
    FILE *f = fopen(path, "rb");
    unsigned char end[22];
    bool fused = f && fseek(f, -(long)sizeof end, SEEK_END) == 0 &&
                 fread(end, 1, sizeof end, f) == sizeof end && memcmp(end, "PK\5\6", 4) == 0;
    if (f)
        fclose(f);
    return fused;
}

/* The zip of `folder` into `out` (fused: appended to this executable). 0, or 1 (reported). */
static int pack(const char *folder, const char *final_out, bool fused) {
    char zip_out[PATH_MAX + 16];
    snprintf(zip_out, sizeof zip_out, fused ? "%s.zip-tmp" : "%s", final_out);
    const char *out = zip_out;
    char root[PATH_MAX];
    struct stat st;
    if (!realpath(folder, root) || stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ona pack: '%s' is not a game folder\n", folder);
        return 1;
    }
    char main_path[PATH_MAX + 16];
    snprintf(main_path, sizeof main_path, "%s/main.lua", root);
    if (stat(main_path, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "ona pack: '%s' has no main.lua (the script a packed game starts with)\n",
                folder);
        return 1;
    }
    /* The output, if it exists already inside the folder, is not packed into itself. */
    char out_real[PATH_MAX];
    const char *skip = realpath(out, out_real) ? out_real : NULL;
    pack_list l = {0};
    int rc = walk(root, "", skip, &l);
    if (rc == 0)
        qsort(l.names, l.count, sizeof *l.names, by_name);
    zip_t *z = NULL;
    if (rc == 0) {
        int err = 0;
        z = zip_open(out, ZIP_CREATE | ZIP_TRUNCATE, &err);
        if (!z) {
            zip_error_t ze;
            zip_error_init_with_code(&ze, err);
            fprintf(stderr, "ona pack: cannot create '%s': %s\n", out, zip_error_strerror(&ze));
            zip_error_fini(&ze);
            rc = -1;
        }
    }
    for (size_t i = 0; rc == 0 && i < l.count; i++) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", root, l.names[i]);
        zip_source_t *src = zip_source_file(z, path, 0, -1);
        zip_int64_t index = src ? zip_file_add(z, l.names[i], src, ZIP_FL_ENC_UTF_8) : -1;
        if (index < 0) {
            fprintf(stderr, "ona pack: cannot add '%s': %s\n", path, zip_strerror(z));
            zip_source_free(src);
            rc = -1;
        } else {
            /* One timestamp for every entry (1980-01-01, zip's first): the same folder gives
             * the same archive. */
            zip_file_set_mtime(z, (zip_uint64_t)index, 315532800, 0);
        }
    }
    if (z && rc == 0 && zip_close(z) != 0) {
        fprintf(stderr, "ona pack: cannot write '%s': %s\n", out, zip_strerror(z));
        zip_discard(z);
        rc = -1;
    } else if (z && rc != 0)
        zip_discard(z);
    if (rc == 0 && fused)
        rc = fuse(out, final_out);
    if (rc == 0)
        printf("ona pack: %s: %zu files from %s%s\n", final_out, l.count, root,
               fused ? " (fused with the launcher: run it as a program)" : "");
    for (size_t i = 0; i < l.count; i++)
        free(l.names[i]);
    free(l.names);
    return rc == 0 ? 0 : 1;
}

int ona__launcher_pack(int argc, char **argv) {
    const char *folder = NULL, *out = NULL;
    bool fused = false;
    for (int i = 0; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--fused") == 0)
            fused = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: ona pack <game-folder> -o <game.ona> [--fused]\n"
                   "  packs the folder into one zip file; `ona game.ona` runs it\n"
                   "  --fused: the output is a program (this launcher with the zip appended)\n"
                   "           that runs the game: ./game [options]\n");
            return 0;
        } else if (!folder && argv[i][0] != '-')
            folder = argv[i];
        else {
            fprintf(stderr,
                    "ona pack: unexpected '%s' (usage: ona pack <game-folder> -o "
                    "<game.ona>)\n",
                    argv[i]);
            return 2;
        }
    }
    if (!folder || !out) {
        fprintf(stderr, "ona pack: usage: ona pack <game-folder> -o <game.ona>\n");
        return 2;
    }
    return pack(folder, out, fused);
}
