// Preloaded into GROMACS's mdrun by tests/openmp/test_real_applications.py,
// plain and measured alike, on a CPU that executes rdtscp while its CPUID
// does not list it (virtual machines often hide it). Debian's GROMACS reads
// its cycle counters with rdtscp and stops with a fatal error where CPUID
// lacks the flag; the test first checks that the instruction runs. This
// adds "rdtscp" to the features gmx::CpuInfo::detect() found: the call
// goes through libgromacs's PLT, so this definition is the one called.
//
// CpuInfo's features are a std::set<Feature> (an int enum) inside the
// returned object; it is found by its red-black tree header (a node count
// and a root whose parent is the header) and the feature's number by
// CpuInfo::featureString, not by GROMACS's private layout.
#include <dlfcn.h>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

static bool plausible(const char* p)
{
    return reinterpret_cast<uintptr_t>(p) >= 65536 && reinterpret_cast<uintptr_t>(p) % 8 == 0;
}

static char* pointer_at(const char* p)
{
    char* value;
    std::memcpy(&value, p, sizeof value);
    return value;
}

// gmx::CpuInfo gmx::CpuInfo::detect(): the object is returned through the
// hidden pointer, which is also the return value
extern "C" void* _ZN3gmx7CpuInfo6detectEv(void* info)
{
    auto detect = reinterpret_cast<void* (*)(void*)>(dlsym(RTLD_NEXT, "_ZN3gmx7CpuInfo6detectEv"));
    auto feature_name = reinterpret_cast<const std::string& (*)(int)>(
        dlsym(RTLD_DEFAULT, "_ZN3gmx7CpuInfo13featureStringB5cxx11ENS0_7FeatureE"));
    detect(info);
    int rdtscp = -1;
    for (int feature = 0; feature_name && feature < 256 && rdtscp < 0; feature++)
        if (feature_name(feature) == "rdtscp") rdtscp = feature;
    if (rdtscp < 0) return info;
    // libstdc++'s set: the comparator's word, then the header node (colour,
    // parent = root, leftmost, rightmost), then the node count
    for (size_t offset = 0; offset < 256; offset += 8) {
        char* set = static_cast<char*>(info) + offset;
        char* header = set + 8;
        char* root = pointer_at(set + 16);
        size_t count;
        std::memcpy(&count, set + 40, sizeof count);
        if (count == 0 || count > 256 || !plausible(root) || !plausible(pointer_at(set + 24)) ||
            !plausible(pointer_at(set + 32)) || pointer_at(root + 8) != header)
            continue;
        reinterpret_cast<std::set<int>*>(set)->insert(rdtscp);
        break;
    }
    return info;
}
