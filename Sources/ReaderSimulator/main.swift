print("reader-sim: not built yet")
