from common import synthetic_posts


def posts_csv(n: int) -> bytes:
    return ("Sentences\r\n" + "".join(f"{t}\r\n" for t in synthetic_posts(n))).encode("utf-8")
