def repl():
    while True:
        line = input(">>> ")
        exec(line)


if __name__ == "__main__":
    repl()
