// The jsoncpp example of the library-wrapping tests (C++: namespaces,
// classes, overloads, nested typedefs): a fixed number of calls of chosen
// functions (the test's EXPECTED_CALLS), output that must not change.
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

#include "libwrap.h"

int main()
{
    Json::Value root(Json::objectValue);
    Json::Value list(Json::arrayValue);
    for (int i = 0; i < 4; i++) list.append(Json::Value(i * 10));           // Value(int) x4, append x4
    root["list"] = list;
    root["name"] = Json::Value("wrapped");                                    // Value(const char*) x1
    Json::Value::ArrayIndex index = 2;                                        // a typedef nested in the class
    int sum = 0;
    for (Json::Value::ArrayIndex i = 0; i < root["list"].size(); i++)        // size() x5
        sum += root["list"][i].asInt();                                      // asInt() x4
    std::printf("sum %d, third %d, size %u\n", sum, root["list"][index].asInt(), list.size());  // asInt x1, size x1

    Json::StreamWriterBuilder writer;
    writer["indentation"] = "";
    std::string text = Json::writeString(writer, root);                      // writeString x1
    std::printf("%s\n", text.c_str());

    Json::CharReaderBuilder builder;
    std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
    Json::Value parsed;
    std::string errors;
    bool ok = reader->parse(text.data(), text.data() + text.size(), &parsed, &errors);
    std::printf("parsed %d, name %s, equal %d\n", ok, parsed["name"].asString().c_str(), parsed == root);
    return 0;
}
