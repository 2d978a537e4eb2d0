// The Qt example of the library-wrapping tests: connections by a signal's
// address (QObject::connect(sender, &Class::signal, ...)), which Qt resolves
// by comparing the program's &Class::signal with the address QtCore's and
// QtWidgets' own code has. A wrapper that takes a signal's symbol changes the
// program's address and every such connect fails ("signal not found"). The
// program counts what it sees and makes a fixed number of calls of chosen
// wrapped functions (the test's EXPECTED_CALLS); it exits 1 if a connection
// failed or a slot ran a wrong number of times.
#include <cstdio>

#include "libwrap.h"

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    int failures = 0;
    auto expect = [&failures](const char *what, long got, long wanted) {
        std::printf("%s: %ld\n", what, got);
        if (got != wanted) {
            std::printf("  FAILED: expected %ld\n", wanted);
            failures++;
        }
    };

    // the slots call QTimer::remainingTime() (wrapped, and not called by Qt
    // itself): its count in the profile shows that they ran
    QTimer timer;                                           // QTimer::QTimer(QObject*) x1

    // QObject::destroyed, emitted by QtCore's destructor
    int destroyed = 0;
    QObject *object = new QObject;                          // QObject::QObject(QObject*) x1
    expect("connect destroyed", bool(QObject::connect(object, &QObject::destroyed, [&](QObject *) {
        destroyed++;
        timer.remainingTime();                              // QTimer::remainingTime() const x1
    })), 1);
    delete object;
    expect("destroyed", destroyed, 1);

    // QTimer::timeout (a signal with a QPrivateSignal parameter), by QtCore's event loop
    int timeouts = 0;
    expect("connect timeout", bool(QObject::connect(&timer, &QTimer::timeout, [&]() {
        timer.remainingTime();                              // QTimer::remainingTime() const x3
        if (++timeouts == 3) {
            timer.stop();                                   // QTimer::stop() x1
            app.quit();
        }
    })), 1);
    QTimer::singleShot(5000, &app, [&]() { std::printf("timer never fired\n"); app.exit(1); });
    timer.start(1);                                         // QTimer::start(int) x1
    int loop = app.exec();
    expect("event loop", loop, 0);
    expect("timeouts", timeouts, 3);

    // QAbstractButton::clicked, emitted by QtWidgets when click() is called
    int clicks = 0;
    QPushButton button(QString::fromLatin1("measured"));    // QPushButton(QString const&, QWidget*) x1
    expect("connect clicked", bool(QObject::connect(&button, &QPushButton::clicked,
                                                    [&clicks](bool) { clicks++; })), 1);
    for (int i = 0; i < 4; i++)
        button.click();                                     // QAbstractButton::click() x4
    expect("clicks", clicks, 4);
    button.setCheckable(true);                              // QAbstractButton::setCheckable(bool) x1
    button.click();                                         // QAbstractButton::click() x1 (5 in all)
    expect("checked", button.isChecked(), 1);               // QAbstractButton::isChecked() const x1
    expect("clicks", clicks, 5);

    // calls the program reaches only through QString's inline code: a friend
    // declared only in the class (found by argument-dependent lookup) and
    // private static helpers of inline members
    QString word = QString::fromUtf8("b\xc3\xa4r");          // QString::fromUtf8_helper(char const*, int) x1
    QString other = QString::fromUtf8("apple");             // QString::fromUtf8_helper(char const*, int) x1 (2)
    int less = 0;
    for (int i = 0; i < 3; i++)
        less += word < other;                               // operator<(QString const&, QString const&) x3
    QByteArray upper = word.toUpper().toUtf8();             // QString::toUpper_helper(QString const&) x1,
                                                            // QString::toUtf8_helper(QString const&) x1
    std::printf("%s %d\n", upper.constData(), less);
    return failures ? 1 : 0;                                // ~QPushButton() x1, ~QTimer() x1
}
