#include <nnef/nnef.hpp>

#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    nnef::Session session;
    if (!session.load_path(argv[1])) {
        for (const auto& d : session.diagnostics()) std::cerr << nnef::render(d, session.sources());
        return 1;
    }
    const nnef::Graph& g = *session.graph();
    std::cout << g.name << ": output " << g.outputs.front() << " " << nnef::to_string(*g.tensor(g.outputs.front())->shape)
              << "\n";
    return 0;
}
