/*
 * bench_support.c: see bench_support.h.
 */
#include "bench_support.h"

#include "ona/ona.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#ifndef ONA_BENCH_BUILD_TYPE
#define ONA_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef ONA_SOURCE_DIR
#define ONA_SOURCE_DIR "."
#endif

ona_runtime *bench_runtime(const ona_runtime_desc *desc, const char *who) {
    ona_runtime *rt;
    int rc = ona_runtime_create(desc, &rt);
    if (rc) {
        fprintf(stderr, "%s: ona_runtime_create: %s\n", who, ona_strerror(rc));
        exit(1);
    }
    return rt;
}

void bench_step(ona_runtime *rt, const char *who) {
    int rc = ona_runtime_step(rt, 1.0 / 60);
    if (rc) {
        fprintf(stderr, "%s: ona_runtime_step: %s\n", who, ona_strerror(rc));
        exit(1);
    }
}

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

bench_stats bench_summarise(double *samples, size_t n) {
    bench_stats s = {0};
    if (n == 0)
        return s;
    qsort(samples, n, sizeof *samples, cmp_double);
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    s.mean = sum / (double)n;
    double var = 0;
    for (size_t i = 0; i < n; i++)
        var += (samples[i] - s.mean) * (samples[i] - s.mean);
    s.stddev = n > 1 ? sqrt(var / (double)(n - 1)) : 0;
    return s;
}

#define CHART_SERIES 8
#define CHART_ROWS 64

struct bench_report {
    char name[128];
    char *text;
    size_t size, cap;
    /* The chart (bench_report_chart); series == 0: none. */
    char chart_title[256], chart_ylabel[128];
    bool chart_log;
    int series, rows;
    char series_names[CHART_SERIES][64];
    char row_labels[CHART_ROWS][64];
    double values[CHART_ROWS][CHART_SERIES];
};

void bench_report_printf(bench_report *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char line[4096];
    int n = vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (r->size + len + 1 > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8192;
        while (cap < r->size + len + 1)
            cap *= 2;
        char *grown = realloc(r->text, cap);
        if (!grown)
            return;
        r->text = grown;
        r->cap = cap;
    }
    memcpy(r->text + r->size, line, len);
    r->size += len;
    r->text[r->size] = '\0';
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(out, n, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

bench_report *bench_report_open(const char *name, const char *title, const char *peers) {
    bench_report *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    snprintf(r->name, sizeof r->name, "%s", name);
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bench_report_printf(r, "# %s\n\n", title);
    bench_report_printf(r, "| | |\n|---|---|\n");
    bench_report_printf(r, "| machine | %s, %ld cores, %s %s |\n", cpu,
                        sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release);
    bench_report_printf(r, "| build type | %s |\n", ONA_BENCH_BUILD_TYPE);
    bench_report_printf(r, "| date | %s |\n", date);
    bench_report_printf(r, "| peers | %s |\n\n", peers);
    return r;
}

void bench_report_chart(bench_report *r, const char *title, const char *ylabel, bool log_scale,
                        int series, const char *const *series_names) {
    if (series < 1 || series > CHART_SERIES)
        abort();
    snprintf(r->chart_title, sizeof r->chart_title, "%s", title);
    snprintf(r->chart_ylabel, sizeof r->chart_ylabel, "%s", ylabel);
    r->chart_log = log_scale;
    r->series = series;
    r->rows = 0;
    for (int i = 0; i < series; i++)
        snprintf(r->series_names[i], sizeof r->series_names[i], "%s", series_names[i]);
}

void bench_report_chart_row(bench_report *r, const char *label, const double *values) {
    if (r->series == 0 || r->rows == CHART_ROWS)
        return;
    snprintf(r->row_labels[r->rows], sizeof r->row_labels[r->rows], "%s", label);
    for (int i = 0; i < r->series; i++)
        r->values[r->rows][i] = values[i];
    r->rows++;
}

/* gnuplot's quoting: a string in double quotes, with quotes and backslashes escaped. */
static void gp_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Writes <dir>/<name>.dat and draws <dir>/<name>.png. Returns true when the picture was drawn. */
static bool write_chart(bench_report *r, const char *dir) {
    char dat[1024], png[1024];
    snprintf(dat, sizeof dat, "%s/%s.dat", dir, r->name);
    snprintf(png, sizeof png, "%s/%s.png", dir, r->name);
    FILE *f = fopen(dat, "w");
    if (!f) {
        fprintf(stderr, "could not write %s\n", dat);
        return false;
    }
    fprintf(f, "# %s (%s)\n\"row\"", r->chart_title, r->chart_ylabel);
    for (int s = 0; s < r->series; s++)
        fprintf(f, "\t\"%s\"", r->series_names[s]);
    fputc('\n', f);
    for (int i = 0; i < r->rows; i++) {
        fprintf(f, "\"%s\"", r->row_labels[i]);
        for (int s = 0; s < r->series; s++) {
            if (isnan(r->values[i][s]))
                fputs("\tNaN", f);
            else
                fprintf(f, "\t%.6g", r->values[i][s]);
        }
        fputc('\n', f);
    }
    fclose(f);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr,
                "chart: gnuplot not found (apt-get install gnuplot-nox); wrote the data "
                "only: %s\n",
                dat);
        return false;
    }
    FILE *gp = popen("gnuplot", "w");
    if (!gp)
        return false;
    fputs("set terminal pngcairo size 960,540 font 'DejaVu Sans,11' noenhanced\n", gp);
    fputs("set output ", gp);
    gp_string(gp, png);
    fputs("\nset title ", gp);
    gp_string(gp, r->chart_title);
    fputs("\nset ylabel ", gp);
    gp_string(gp, r->chart_ylabel);
    fputs("\nset style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset key top left\n"
          "set grid ytics\nset xtics rotate by -20 nomirror\nset datafile missing 'NaN'\n"
          "set yrange [0:*]\n",
          gp);
    if (r->chart_log)
        fputs("set logscale y\nset yrange [*:*]\n", gp);
    fputs("plot ", gp);
    for (int s = 0; s < r->series; s++) {
        fprintf(gp, "%s", s ? ", '' " : "");
        if (!s)
            gp_string(gp, dat);
        fprintf(gp, " using %d%s title columnhead", s + 2, s ? "" : ":xtic(1)");
    }
    fputs("\n", gp);
    int status = pclose(gp);
    if (status != 0) {
        fprintf(stderr, "chart: gnuplot failed for %s\n", png);
        return false;
    }
    fprintf(stderr, "wrote %s\n", png);
    return true;
}

int bench_report_close(bench_report *r) {
    const char *dir = getenv("ONA_BENCH_RESULTS");
    if (!dir)
        dir = ONA_SOURCE_DIR "/benchmarks/results";
    if (r->series && r->rows && write_chart(r, dir))
        bench_report_printf(r, "\n![%s](%s.png)\n", r->chart_title, r->name);
    fputs(r->text ? r->text : "", stdout);
    fflush(stdout);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.md", dir, r->name);
    int rc = 0;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(r->text ? r->text : "", f);
        fclose(f);
        fprintf(stderr, "wrote %s\n", path);
    } else {
        fprintf(stderr, "could not write %s\n", path);
        rc = -1;
    }
    free(r->text);
    free(r);
    return rc;
}

/* --- Peers and load ------------------------------------------------------------------------ */

bool bench_find_program(const char *name, char *out, size_t size) {
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t len = strcspn(p, ":");
        char candidate[1024];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? p : ".", name);
        if (access(candidate, X_OK) == 0) {
            snprintf(out, size, "%s", candidate);
            return true;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return false;
}

int bench_run_capture(char *const argv[], char *out, size_t size, double timeout_s) {
    out[0] = '\0';
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    uint64_t deadline = bench_now_ns() + (uint64_t)(timeout_s * 1e9);
    bool killed = false;
    for (;;) {
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int ready = poll(&pfd, 1, 500);
        if (ready < 0 && errno != EINTR)
            break;
        if (bench_now_ns() > deadline) {
            kill(pid, SIGKILL);
            killed = true;
            break;
        }
        if (ready <= 0)
            continue;
        char chunk[1024];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n <= 0)
            break;
        size_t take = (size_t)n < size - 1 - used ? (size_t)n : size - 1 - used;
        memcpy(out + used, chunk, take);
        used += take;
        out[used] = '\0';
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (killed || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

int bench_load_start(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        volatile uint64_t spin = 0;
        for (;;)
            spin++;
    }
    return pid < 0 ? -1 : (int)pid;
}

void bench_load_text(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return;
    if (!fgets(out, (int)size, f))
        snprintf(out, size, "unknown");
    out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

void bench_load_stop(int pid) {
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}
