// Header-only consumer: this translation unit compiles the implementation.
#define NNEF_IMPLEMENTATION
#include <nnef/nnef.hpp>

#include <iostream>

std::string summary(const nnef::Session& session);  // summary.cpp

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    nnef::Session session;
    if (!session.load_path(argv[1])) {
        for (const auto& d : session.diagnostics()) std::cerr << nnef::render(d, session.sources());
        return 1;
    }
    std::cout << summary(session) << "\n";
    return 0;
}
