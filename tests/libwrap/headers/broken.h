/* A header with a syntax error on line 4. */
int broken_ok(int x);

int broken_bad(int x;
