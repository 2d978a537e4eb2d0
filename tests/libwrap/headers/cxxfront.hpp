// The C++ header of the front-end tests: namespaces, classes, overloads,
// operators, special members, and everything that must be skipped.
#ifndef CXXFRONT_HPP
#define CXXFRONT_HPP
#include <array>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "cxxfront_base.hpp"

namespace geo {

class Canvas {
public:
    typedef unsigned ArrayIndex;                  // used unqualified below
    using Names = std::vector<std::string>;       // a using-alias, too
    enum Mode { Fast, Slow };
    struct Layer { int depth; };

    Canvas();
    explicit Canvas(int width, int height = 3);
    Canvas(const Canvas &other);
    Canvas(Canvas &&) noexcept;
    Canvas(int, int, int) = delete;
    virtual ~Canvas();

    Canvas &operator=(const Canvas &);
    bool operator==(const Canvas &) const;
    Point &operator[](ArrayIndex i);
    const Point &operator[](ArrayIndex i) const;
    explicit operator bool() const;
    static void *operator new(std::size_t size);
    static void operator delete(void *p);

    int draw(Shape s, Mode m = Fast);
    int draw(const Point &p, real scale) const;
    void setNames(Names const &names);
    Names names() const;
    ArrayIndex size() const noexcept;
    Layer *layer(ArrayIndex);
    void label(std::string const &text, const char *font = nullptr);
    static Canvas *create(index_t n);
    static int count();
    virtual void paint();
    virtual void outline() = 0;
    void rvalueOnly() &&;
    void lvalueOnly() const &;
    void volatileMethod() volatile;
    void onEvent(void (*handler)(Canvas &, int), void *data);
    void (*handlerFor(int event))(Canvas &, int);
    void fill(rgb *pixels, rgb color, double (*raw)[3]);

    int inlineMethod() { return 1; }
    inline int declaredInline();
    constexpr int constant() const { return 0; }
    void deleted() = delete;
    template <class T> void templated(T);

    class Nested {
    public:
        Nested();
        void run(ArrayIndex index, Mode mode);
        struct Deep { static void go(Mode m, Layer l); };
    };

protected:
    void protectedHook(int);

private:
    void privateHelper();
    typedef int Secret;
    struct Hidden { int h; };
    class PrivateNested { public: void work(); };

public:
    void usesSecret(Secret s);      // a private typedef: written as int
    void usesHidden(Hidden *h);     // a private type: cannot be named
};

inline int Canvas::declaredInline() { return 2; }

int distance(const Point &a, const Point &b);
Point operator+(const Point &a, const Point &b);
std::ostream &operator<<(std::ostream &os, const Point &p);
int sum(int n, ...);
void callbacks(int (*compare)(const void *, const void *), void (*done)());
std::string greet(const std::string &who);
std::string const &echo(std::string const &s);
int twice(int x);
double twice(double x);

template <class T> T square(T t);
template <> int square<int>(int t);
template <class T> struct Box {
    T value;
    T get() const;
    void set(T v);
};
void useBox(Box<int> &b, const Box<index_t> *bp, Box<Canvas::Mode> m);

static int internal(int);
namespace { int hiddenAway(int); }
namespace detail { inline namespace v1 { int versioned(int); } }
constexpr int cube(int x) { return x * x * x; }
int deletedFree(double) = delete;

struct Friendly {
    friend int befriend(Friendly &);
    friend int onlyFriend(Friendly &, int);
    friend bool operator==(Friendly, Friendly) { return true; }
};
int befriend(Friendly &);

// standard-library types in signatures: template arguments, member typedefs
// of specialisations, values as template arguments, alias templates
template <class T> using Table = std::map<std::string, T>;
template <class A, class B> using Swapped = std::pair<B, A>;
struct Library {
    using Callback = std::function<void(const Point &, int)>;
    void subscribe(Callback cb, std::function<int(double)> const &f);
    std::map<std::string, int>::iterator find(std::map<std::string, int> &m, const std::string &k);
    std::vector<Point>::size_type count(const std::vector<Point> &v) const;
    std::array<int, 3> triple(const std::array<double, 2> &a);
    std::unique_ptr<int[]> buffer(std::size_t n);
    Table<real> table(Table<int> const &t, Swapped<int, char> p);
    int pick(const char (&name)[4], int (Canvas::*method)(Shape, Canvas::Mode), real Point::*field);
    decltype(sizeof(int)) measured(decltype(0.5f) f);
    auto trailing(int x) -> long;
};

}  // namespace geo

extern "C" {
int c_linkage(int x);
struct c_stat { long size; };
int c_stat(const char *path, struct c_stat *buf);
}

int global_function(geo::Canvas::Mode m, geo::Shape s, geo::Canvas::Nested::Deep *d);
#endif
