"""Turns a text file into C source defining it as a string, for files the
runtime writes out verbatim (the remapping specification inside
profile.cubex): embed_text.py INPUT OUTPUT SYMBOL defines
    const char SYMBOL[];          the text, NUL-terminated
    const unsigned long SYMBOL_size;   its length in bytes, without the NUL"""
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: embed_text.py INPUT OUTPUT SYMBOL")
    source, target, symbol = argv[1:]
    try:
        data = open(source, "rb").read()
    except OSError as e:
        sys.exit(f"embed_text.py: cannot read {source}: {e.strerror}")
    lines = []
    for line in data.splitlines(keepends=True):
        text = "".join("\\n" if b == 10 else chr(b) if 0x20 <= b < 0x7f and chr(b) not in '"\\?' else f"\\{b:03o}"
                       for b in line)
        lines.append(f'    "{text}"')
    with open(target, "w") as out:
        out.write(f"/* generated from {source.rsplit('/', 1)[-1]} by runtime/embed_text.py */\n")
        out.write(f"const char {symbol}[] =\n" + ("\n".join(lines) or '    ""') + ";\n")
        out.write(f"const unsigned long {symbol}_size = {len(data)}ul;\n")


if __name__ == "__main__":
    main(sys.argv)
