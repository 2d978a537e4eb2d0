/* An ISO C I/O program of known behaviour (tests/io/test_isoc_io.py): in
 * write_file, three fprintf lines of 16 bytes, an fwrite of 5 items of 10
 * bytes, an fputs of 11 bytes, fputc, putc, fputc (3 bytes), fflush, fseek
 * to the end, ftell, fclose: 112 bytes; in read_file, three fgets of the
 * lines (48 bytes), an fread of the 5 items (50 bytes), an fgets of the
 * fputs line (11 bytes), fgetc, getc, fgetc (3 bytes), then an fgetc and an
 * fgets at the end of the file (EOF, NULL: no bytes), rewind, an fscanf of
 * the first line's number, fclose; main prints what it read with printf and
 * puts (their bytes are the program's output).
 * Every call is checked: a failed call ends the program with exit code 1.
 * The strings go through `opaque` so that the compiler cannot turn fputs of
 * a known string into fwrite, or fprintf into fputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEM 10
#define ITEMS 5

static void check(int ok, const char* what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

static __attribute__((noinline)) const char* opaque(const char* s)
{
    __asm__ volatile("" : "+r"(s));
    return s;
}

static char block[ITEM * ITEMS];
static volatile int items = ITEMS;

static __attribute__((noinline)) void write_file(const char* path)
{
    FILE* f = fopen(path, opaque("w"));
    check(f != NULL, "fopen for writing");
    for (int i = 0; i < 3; i++)
        check(fprintf(f, "line %d of %s\n", i, opaque("stdio")) == 16, "fprintf");
    for (int i = 0; i < ITEM * ITEMS; i++)
        block[i] = (char)('A' + i % 26);
    check(fwrite(block, ITEM, (size_t)items, f) == ITEMS, "fwrite");
    check(fputs(opaque("fputs line\n"), f) >= 0, "fputs");
    check(fputc('x', f) == 'x' && putc('y', f) == 'y' && fputc('\n', f) == '\n', "fputc");
    check(fflush(f) == 0, "fflush");
    check(fseek(f, 0, SEEK_END) == 0 && ftell(f) == 112, "fseek");
    check(fclose(f) == 0, "fclose");
}

static __attribute__((noinline)) size_t read_file(const char* path, int* number)
{
    char line[64], copy[ITEM * ITEMS];
    size_t got = 0;
    FILE* f = fopen(path, opaque("r"));
    check(f != NULL, "fopen for reading");
    for (int i = 0; i < 3; i++) {
        check(fgets(line, sizeof line, f) != NULL, "fgets");
        got += strlen(line);
    }
    check(fread(copy, ITEM, (size_t)items, f) == ITEMS && memcmp(copy, block, sizeof copy) == 0, "fread");
    got += sizeof copy;
    check(fgets(line, sizeof line, f) != NULL && strcmp(line, "fputs line\n") == 0, "fgets");
    got += strlen(line);
    check(fgetc(f) == 'x' && getc(f) == 'y' && fgetc(f) == '\n', "fgetc");
    got += 3;
    check(fgetc(f) == EOF && fgets(line, sizeof line, f) == NULL, "reading at the end");
    rewind(f);
    check(fscanf(f, "line %d", number) == 1, "fscanf");
    check(fclose(f) == 0, "fclose");
    return got;
}

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : "stdio_known.dat";
    int number = -1;
    write_file(path);
    size_t got = read_file(path, &number);
    printf("read %zu bytes, first number %d\n", got, number);
    puts(opaque("done"));
    return 0;
}
