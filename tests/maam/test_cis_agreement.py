"""The offline C-I-S inferer against hand-set tags on the project's own demo posts."""
from annotation.demo import DEMO_CONTEXT, DEMO_POSTS
from modeling.maam.astigmatism import STATES, CueInferer


def agreement() -> dict[str, float]:
    inferred = CueInferer().infer_many([text for text, *_ in DEMO_POSTS])
    return {axis: sum(s.get(axis) == tags[i] for s, tags in zip(inferred, DEMO_CONTEXT)) / len(DEMO_POSTS)
            for i, axis in enumerate("CIS")}


def test_demo_tags_are_valid_states():
    assert len(DEMO_CONTEXT) == len(DEMO_POSTS)
    for tags in DEMO_CONTEXT:
        assert all(tag in STATES[axis] for axis, tag in zip("CIS", tags))


def test_cue_inferer_beats_always_default_on_stance():
    scores = agreement()
    always_neutral = sum(t[2] == "Neutral" for t in DEMO_CONTEXT) / len(DEMO_CONTEXT)
    assert scores["S"] > always_neutral, scores


if __name__ == "__main__":
    print(agreement())
