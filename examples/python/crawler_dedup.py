"""URL dedup for a crawler whose workers are separate processes, through one Redis filter.

Each worker takes pages from a shared queue, "fetches" them (a synthetic link graph: page i
links to a few pages derived from i), and enqueues only links that the shared filter has not
seen: RedisFilter.add returns True for a URL no worker added before, so every URL is crawled
once across all workers (up to the filter's false positives, which skip a few new URLs; never
a URL crawled twice).

    redis-server --port 6390 --save '' &
    PYTHONPATH=build/release/bindings/python python3 examples/python/crawler_dedup.py \
        --url redis://127.0.0.1:6390 --workers 4 --pages 20000
"""

import argparse
import multiprocessing as mp
import queue

import bloomkit

FILTER = "crawler:seen"


def links_of(page, pages):
    """The outgoing links of a page of the synthetic site (each page links to 4 others)."""
    i = int(page.rsplit("/", 1)[1])
    return [f"https://example.com/page/{(i * 7 + j * 104729) % pages}" for j in range(1, 5)]


def worker(url, frontier, pages, crawled):
    # One handle (one connection) per process: handles are not shared across fork.
    seen = bloomkit.RedisFilter.open(url, FILTER)
    count = 0
    while True:
        try:
            page = frontier.get(timeout=1.0)
        except queue.Empty:
            break  # nothing new for a second: the crawl is done
        count += 1
        links = links_of(page, pages)
        fresh = [link for link in links if seen.add(link)]  # True: no worker saw it before
        for link in fresh:
            frontier.put(link)
    seen.flush()
    crawled.put(count)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=None,
                    help="Redis URL (default: BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--pages", type=int, default=20000)
    a = ap.parse_args()

    bloomkit.RedisFilter.create(a.url, FILTER, capacity=a.pages * 2, fpp=0.001).drop()
    seen = bloomkit.RedisFilter.create(a.url, FILTER, capacity=a.pages * 2, fpp=0.001)
    start = "https://example.com/page/0"
    seen.add(start)
    frontier, crawled = mp.Queue(), mp.Queue()
    frontier.put(start)
    procs = [mp.Process(target=worker, args=(a.url, frontier, a.pages, crawled))
             for _ in range(a.workers)]
    for p in procs:
        p.start()
    counts = [crawled.get() for _ in procs]
    for p in procs:
        p.join()
    total = sum(counts)
    print(f"crawled {total} distinct pages with {a.workers} workers: {counts}")
    print(f"filter: {seen.info()['estimated_count']:.0f} URLs estimated, "
          f"{seen.inserted()} counted as new")
    seen.drop()


if __name__ == "__main__":
    main()
