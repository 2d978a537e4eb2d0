/* A small QtCore program: QString and QStringList are inline functions and
 * templates of Qt's headers (below /usr/include, reached through Qt's -I). */
#include <QString>
#include <QStringList>
#include <cstdio>
#include <cstdlib>

static QString label(int i) { return QString::number(i).rightJustified(4, QLatin1Char('0')); }

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    QStringList items;
    for (int i = 0; i < n; i++) items.append(label(n - i));
    items.sort();
    printf("%s %s\n", qPrintable(items.first()), qPrintable(items.last()));
    return 0;
}
