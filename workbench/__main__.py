from workbench.cli import entry

if __name__ == "__main__":  # not when a worker process (multiprocessing's spawn) imports this module
    entry()
