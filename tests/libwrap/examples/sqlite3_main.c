/* The sqlite3 example of the library-wrapping tests: a fixed number of calls
 * of each function (the test's EXPECTED_CALLS); sqlite3_mprintf takes
 * variable arguments and is forwarded to sqlite3_vmprintf. */
#include <stdio.h>

#include "libwrap.h"

#define ROWS 5

int main(void)
{
    sqlite3* db;
    sqlite3_stmt* stmt;
    printf("sqlite %s\n", sqlite3_libversion());
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
    sqlite3_exec(db, "CREATE TABLE t(x INTEGER, name TEXT)", NULL, NULL, NULL);
    for (int i = 0; i < ROWS; i++) {
        char* sql = sqlite3_mprintf("INSERT INTO t VALUES(%d, %Q)", i * i, i % 2 ? "odd" : "even");
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        sqlite3_free(sql);
    }
    sqlite3_prepare_v2(db, "SELECT x, name FROM t ORDER BY x", -1, &stmt, NULL);
    int rows = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        printf("%d %s\n", sqlite3_column_int(stmt, 0), (const char*)sqlite3_column_text(stmt, 1));
        rows++;
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    printf("%d rows\n", rows);
    return 0;
}
