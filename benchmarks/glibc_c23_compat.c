/* glibc 2.38's C23 entry points (strtol & co. accepting 0b prefixes, scanf's %b), for host objects compiled
 * against glibc >= 2.38 (the lent GPU machine's Ubuntu 24.04) and linked here against Debian 12's glibc 2.36:
 * binary_corpora.py link --extra-object. Each forwards to the function the older glibc has. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }
int __isoc23_vsscanf(const char *s, const char *format, va_list args) { return vsscanf(s, format, args); }
int __isoc23_vfscanf(FILE *f, const char *format, va_list args) { return vfscanf(f, format, args); }
int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int done = vsscanf(s, format, args);
    va_end(args);
    return done;
}
int __isoc23_fscanf(FILE *f, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int done = vfscanf(f, format, args);
    va_end(args);
    return done;
}
int __isoc23_scanf(const char *format, ...) {
    va_list args;
    va_start(args, format);
    int done = vfscanf(stdin, format, args);
    va_end(args);
    return done;
}
