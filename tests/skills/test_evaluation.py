import json
from pathlib import Path

import pytest

from skills.domain import DEFAULT_TONE, SkillDefinition
from skills.evaluation import NEW_USER_LABELLED_SETS, evaluate, format_report, load_jsonl
from skills.opinion import shipped_opinion
from tests.skills.shipped import shipped_definitions

REPO = Path(__file__).resolve().parents[2]
DEV_SET = REPO.parent / "shared" / "eval" / "routing-dev.jsonl"
REQUIRED_EXACT_MATCH = 0.95


def make_skill(name: str, *patterns: str, priority: int = 5, **fields: object) -> SkillDefinition:
    return SkillDefinition(
        name=name,
        description="",
        trigger_patterns=patterns,
        tools=(),
        prompt_extension="",
        tone=DEFAULT_TONE,
        priority=priority,
        **fields,  # type: ignore[arg-type]
    )


SKILLS = [
    make_skill("general", priority=10),
    make_skill("finance", "gast", "=reais", priority=3),
    make_skill("health", "dormi", priority=4),
    make_skill("spiritual", "reza", requires_user_preference="christian_perspective"),
]


def test_single_messages_are_scored_by_exact_set():
    report = evaluate(
        [
            {"text": "gastei 10 reais", "skills": ["finance"]},
            {"text": "dormi mal e gastei muito", "skills": ["health", "finance"]},
            {"text": "oi", "skills": ["general"]},
            {"text": "dormi mal", "skills": ["counselor", "health"]},
        ],
        SKILLS,
    )
    assert report.n == 4
    assert report.exact_match == 0.75
    assert [tuple(miss) for miss in report.misses] == [("dormi mal", ("counselor", "health"), ("health",))]


def test_per_skill_scores_count_true_and_false_positives_and_negatives():
    report = evaluate(
        [
            {"text": "gastei", "skills": ["finance"]},
            {"text": "gastei", "skills": ["health"]},
            {"text": "oi", "skills": ["finance"]},
        ],
        SKILLS,
    )
    finance = report.per_skill["finance"]
    assert (finance.tp, finance.fp, finance.fn, finance.support) == (1, 1, 1, 2)
    assert finance.precision == 0.5
    assert finance.recall == 0.5
    health = report.per_skill["health"]
    assert (health.tp, health.fp, health.fn, health.precision, health.recall) == (0, 0, 1, 0.0, 0.0)
    assert report.per_skill["general"].fp == 1


def test_preferences_of_a_line_are_passed_to_detection():
    report = evaluate(
        [
            {"text": "quero rezar", "skills": ["spiritual"], "preferences": {"christian_perspective": True}},
            {"text": "quero rezar", "skills": ["general"], "preferences": {"christian_perspective": False}},
            {"text": "quero rezar", "skills": ["general"], "preferences": {}},
        ],
        SKILLS,
    )
    assert report.exact_match == 1.0


def test_a_line_stating_no_preferences_is_scored_with_every_optional_skill_on_unless_asked_otherwise():
    """As the shared development set labels it: "Quero me aproximar mais de Deus", with no
    preferences, is spiritual; with christian_perspective false, general."""
    unstated = [{"text": "quero rezar", "skills": ["spiritual"]}]

    assert evaluate(unstated, SKILLS).exact_match == 1.0
    assert evaluate(unstated, SKILLS, unstated_preferences_on=False).exact_match == 0.0


def test_a_conversation_carries_inertia_across_its_turns():
    conversation = {
        "conversation": [
            {"text": "gastei 10 reais", "skills": ["finance"]},
            {"text": "e ontem?", "skills": ["finance"]},
            {"text": "e anteontem?", "skills": ["general"]},
        ]
    }
    assert evaluate([conversation], SKILLS, inertia_messages=1).exact_match == 1.0
    assert evaluate([conversation], SKILLS, inertia_messages=5).exact_match == pytest.approx(2 / 3)


def test_each_line_starts_a_fresh_state():
    report = evaluate(
        [
            {"conversation": [{"text": "gastei", "skills": ["finance"]}]},
            {"text": "e ontem?", "skills": ["general"]},
            {"conversation": [{"text": "e hoje?", "skills": ["general"]}]},
        ],
        SKILLS,
    )
    assert report.n == 3
    assert report.exact_match == 1.0


def test_the_turns_of_conversations_are_also_scored_apart():
    report = evaluate(
        [
            {"text": "e ontem?", "skills": ["finance"]},
            {"conversation": [{"text": "gastei", "skills": ["finance"]}, {"text": "e ontem?", "skills": ["finance"]}]},
        ],
        SKILLS,
    )
    assert (report.n, report.exact_match) == (3, pytest.approx(2 / 3))
    assert (report.turns, report.turns_exact_match) == (2, 1.0)
    assert "conversation turns: 2/2 (100.0%)" in format_report(report)


def test_a_line_without_text_or_conversation_is_rejected():
    with pytest.raises(ValueError, match="line 2"):
        evaluate([{"text": "oi", "skills": ["general"]}, {"skills": []}], SKILLS)


def test_a_message_without_a_list_of_skills_is_rejected():
    with pytest.raises(ValueError, match="list of 'skills'"):
        evaluate([{"text": "oi", "skills": "general"}], SKILLS)


def test_the_report_converts_to_plain_data():
    report = evaluate([{"text": "oi", "skills": ["health"]}], SKILLS)
    data = report.as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["n"] == 1
    assert data["exact_match"] == 0.0
    assert data["misses"] == [{"text": "oi", "expected": ["health"], "got": ["general"]}]
    assert data["per_skill"]["health"] == {"precision": 0.0, "recall": 0.0, "support": 1, "tp": 0, "fp": 0, "fn": 1}


def test_the_formatted_report_shows_accuracy_skills_and_misses():
    text = format_report(evaluate([{"text": "oi", "skills": ["health"]}, {"text": "gastei", "skills": ["finance"]}], SKILLS))
    assert "exact match: 1/2 (50.0%)" in text
    assert "finance" in text and "health" in text
    assert "'oi': expected health; got general" in text


def test_an_empty_evaluation_has_zero_samples():
    report = evaluate([], SKILLS)
    assert (report.n, report.exact_match, report.per_skill, report.misses) == (0, 0.0, {}, ())


def test_load_jsonl_skips_blank_lines(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text('{"text": "a", "skills": []}\n\n{"text": "b", "skills": []}\n', encoding="utf-8")
    assert [line["text"] for line in load_jsonl(path)] == ["a", "b"]


def test_load_jsonl_names_the_line_with_bad_json(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text('{"text": "a", "skills": []}\n{"text": \n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"set.jsonl:2: invalid JSON"):
        load_jsonl(path)


def test_load_jsonl_rejects_lines_that_are_not_objects(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"set.jsonl:1: expected a JSON object"):
        load_jsonl(path)


@pytest.mark.skipif(not DEV_SET.exists(), reason="the routing dev set is not available")
@pytest.mark.parametrize("opinion", [None, shipped_opinion()], ids=["patterns", "with the learned opinion"])
def test_the_shipped_skills_route_the_dev_set_with_at_least_95_percent_exact_match(opinion):
    skills = shipped_definitions()
    assert len(skills) == 7
    report = evaluate(load_jsonl(DEV_SET), skills, opinion=opinion)
    assert report.exact_match >= REQUIRED_EXACT_MATCH, format_report(report)


def test_the_learned_opinion_lifts_the_labelled_sets_together():
    """Patterns alone: 29,518 of 33,038 samples (89.3%); with the opinion, trained on these very
    sets, 30,457 (92.2%) (round 66). On sets it had not seen it moved a blind pair's score by
    -4.4 to +7.0 points, mostly up (docs/skills.md, rounds 56-66)."""
    skills = shipped_definitions()
    totals = {}
    for opinion in (None, shipped_opinion()):
        right = 0
        for path in sorted((REPO / "tests" / "data").glob("routing-*.jsonl")):
            new_user = path.name in NEW_USER_LABELLED_SETS
            report = evaluate(load_jsonl(path), skills, unstated_preferences_on=not new_user, opinion=opinion)
            right += round(report.exact_match * report.n)
        totals[opinion is not None] = right
    assert totals[True] >= totals[False] + 100, totals


@pytest.mark.parametrize(
    ("name", "floor"), [("routing-dev-2.jsonl", 0.885), ("routing-dev-3.jsonl", 0.945), ("routing-dev-4.jsonl", 0.9),
     ("routing-dev-5.jsonl", 0.87), ("routing-dev-6.jsonl", 0.98), ("routing-dev-7.jsonl", 0.99),
     ("routing-dev-8.jsonl", 0.97), ("routing-dev-9.jsonl", 0.95), ("routing-dev-10.jsonl", 0.965),
     ("routing-dev-11.jsonl", 0.965), ("routing-dev-12.jsonl", 0.975), ("routing-dev-13.jsonl", 0.945),
     ("routing-dev-14.jsonl", 0.985), ("routing-dev-15.jsonl", 0.915), ("routing-dev-16.jsonl", 0.97),
     ("routing-dev-17.jsonl", 0.955), ("routing-dev-18.jsonl", 0.95), ("routing-dev-19.jsonl", 0.905),
     ("routing-dev-20.jsonl", 0.985), ("routing-dev-21.jsonl", 0.985), ("routing-dev-22.jsonl", 0.99),
     ("routing-dev-23.jsonl", 0.955), ("routing-dev-24.jsonl", 0.98),
     ("routing-dev-25.jsonl", 0.965), ("routing-dev-26.jsonl", 0.915),
     ("routing-dev-27.jsonl", 0.965), ("routing-dev-28.jsonl", 0.965), ("routing-dev-29.jsonl", 0.99),
     ("routing-dev-30.jsonl", 0.87),
     ("routing-holdout-3.jsonl", 0.975), ("routing-holdout-7.jsonl", 0.97), ("routing-holdout-8.jsonl", 0.95),
     ("routing-holdout-9.jsonl", 0.94), ("routing-holdout-10.jsonl", 0.985), ("routing-holdout-11.jsonl", 0.93),
     ("routing-holdout-12.jsonl", 0.96), ("routing-holdout-13.jsonl", 0.92), ("routing-holdout-14.jsonl", 0.975),
     ("routing-holdout-15.jsonl", 0.94), ("routing-holdout-16.jsonl", 0.935),
     ("routing-holdout-17.jsonl", 0.955), ("routing-holdout-18.jsonl", 0.875),
     ("routing-holdout-19.jsonl", 0.935), ("routing-holdout-20.jsonl", 0.93),
     ("routing-holdout-21.jsonl", 0.975), ("routing-holdout-22.jsonl", 0.97),
     ("routing-holdout-23.jsonl", 0.975), ("routing-holdout-24.jsonl", 0.955),
     ("routing-holdout-25.jsonl", 0.95), ("routing-holdout-26.jsonl", 0.89),
     ("routing-holdout-27.jsonl", 0.905), ("routing-holdout-28.jsonl", 0.92),
     ("routing-holdout-29.jsonl", 0.93), ("routing-holdout-30.jsonl", 0.935),
     ("routing-holdout-31.jsonl", 0.93), ("routing-holdout-32.jsonl", 0.855),
     ("routing-holdout-33.jsonl", 0.915), ("routing-holdout-34.jsonl", 0.70),
     ("routing-holdout-35.jsonl", 0.955), ("routing-holdout-36.jsonl", 0.835),
     ("routing-holdout-37.jsonl", 0.915), ("routing-holdout-38.jsonl", 0.88),
     ("routing-holdout-39.jsonl", 0.95), ("routing-holdout-40.jsonl", 0.97),
     ("routing-holdout-41.jsonl", 0.935), ("routing-holdout-42.jsonl", 0.95),
     ("routing-holdout-43.jsonl", 0.925), ("routing-holdout-44.jsonl", 0.93),
     ("routing-holdout-45.jsonl", 0.95), ("routing-holdout-46.jsonl", 0.905),
     ("routing-holdout-47.jsonl", 0.91), ("routing-holdout-48.jsonl", 0.935),
     ("routing-holdout-49.jsonl", 0.975), ("routing-holdout-50.jsonl", 0.975),
     ("routing-holdout-51.jsonl", 0.92), ("routing-holdout-52.jsonl", 0.96),
     ("routing-holdout-53.jsonl", 0.93), ("routing-holdout-54.jsonl", 0.965),
     ("routing-holdout-55.jsonl", 0.99), ("routing-holdout-56.jsonl", 0.94),
     ("routing-holdout-57.jsonl", 0.88), ("routing-holdout-58.jsonl", 0.88),
     ("routing-holdout-59.jsonl", 0.92), ("routing-holdout-60.jsonl", 0.82),
     ("routing-holdout-61.jsonl", 0.99), ("routing-holdout-62.jsonl", 0.935),
     ("routing-holdout-63.jsonl", 0.975), ("routing-holdout-64.jsonl", 0.88),
     ("routing-holdout-65.jsonl", 0.95), ("routing-holdout-66.jsonl", 0.935),
     ("routing-holdout-67.jsonl", 0.93), ("routing-holdout-68.jsonl", 0.89),
     ("routing-holdout-69.jsonl", 0.79), ("routing-holdout-70.jsonl", 0.855),
     ("routing-holdout-71.jsonl", 0.92), ("routing-holdout-72.jsonl", 0.71),
     ("routing-holdout-73.jsonl", 0.895), ("routing-holdout-74.jsonl", 0.715),
     ("routing-holdout-75.jsonl", 0.89), ("routing-holdout-76.jsonl", 0.72),
     ("routing-holdout-77.jsonl", 0.925), ("routing-holdout-78.jsonl", 0.79),
     ("routing-holdout-79.jsonl", 0.88), ("routing-holdout-80.jsonl", 0.795),
     ("routing-holdout-81.jsonl", 0.87), ("routing-holdout-82.jsonl", 0.79),
     ("routing-holdout-83.jsonl", 0.96), ("routing-holdout-84.jsonl", 0.96),
     ("routing-holdout-85.jsonl", 0.97), ("routing-holdout-86.jsonl", 0.94),
     ("routing-holdout-87.jsonl", 0.945), ("routing-holdout-88.jsonl", 0.935),
     ("routing-holdout-89.jsonl", 0.98), ("routing-holdout-90.jsonl", 0.935),
     ("routing-holdout-91.jsonl", 0.81), ("routing-holdout-92.jsonl", 0.85),
     ("routing-holdout-93.jsonl", 0.87), ("routing-holdout-94.jsonl", 0.94),
     ("routing-holdout-95.jsonl", 0.795), ("routing-holdout-96.jsonl", 0.825),
     ("routing-holdout-97.jsonl", 0.965), ("routing-holdout-98.jsonl", 0.91),
     ("routing-holdout-99.jsonl", 0.73), ("routing-holdout-100.jsonl", 0.93),
     ("routing-holdout-101.jsonl", 0.71), ("routing-holdout-102.jsonl", 0.75),
     ("routing-holdout-103.jsonl", 0.67), ("routing-holdout-104.jsonl", 0.67),
     ("routing-holdout-105.jsonl", 0.65), ("routing-holdout-106.jsonl", 0.77),
     ("routing-holdout-107.jsonl", 0.65), ("routing-holdout-108.jsonl", 0.86),
     ("routing-holdout-109.jsonl", 0.50), ("routing-holdout-110.jsonl", 0.83),
     ("routing-holdout-111.jsonl", 0.59), ("routing-holdout-112.jsonl", 0.88),
     ("routing-holdout-113.jsonl", 0.57), ("routing-holdout-114.jsonl", 0.80),
     ("routing-holdout-115.jsonl", 0.93), ("routing-holdout-116.jsonl", 0.935),
     ("routing-holdout-117.jsonl", 0.84), ("routing-holdout-118.jsonl", 0.94),
     ("routing-holdout-119.jsonl", 0.64), ("routing-holdout-120.jsonl", 0.915),
     ("routing-holdout-121.jsonl", 0.67), ("routing-holdout-122.jsonl", 0.93),
     ("routing-holdout-123.jsonl", 0.85), ("routing-holdout-124.jsonl", 0.925),
     ("routing-holdout-125.jsonl", 0.86), ("routing-holdout-126.jsonl", 0.945),
     ("routing-holdout-129.jsonl", 0.755), ("routing-holdout-130.jsonl", 0.91),
     ("routing-holdout-131.jsonl", 0.83), ("routing-holdout-132.jsonl", 0.91),
     ("routing-holdout-133.jsonl", 0.65), ("routing-holdout-134.jsonl", 0.905),
     ("routing-holdout-135.jsonl", 0.76), ("routing-holdout-136.jsonl", 0.90),
     ("routing-holdout-137.jsonl", 0.77), ("routing-holdout-138.jsonl", 0.90),
     ("routing-holdout-139.jsonl", 0.80), ("routing-holdout-140.jsonl", 0.91),
     ("routing-holdout-143.jsonl", 0.88), ("routing-holdout-144.jsonl", 0.96),
     ("routing-holdout-145.jsonl", 0.82), ("routing-holdout-146.jsonl", 0.92),
     ("routing-holdout-147.jsonl", 0.94), ("routing-holdout-148.jsonl", 0.97),
     ("routing-holdout-149.jsonl", 0.77), ("routing-holdout-150.jsonl", 0.89),
     ("routing-holdout-151.jsonl", 0.92), ("routing-holdout-152.jsonl", 0.95),
     ("routing-holdout-153.jsonl", 0.86), ("routing-holdout-154.jsonl", 0.89),
     ("routing-holdout-155.jsonl", 0.86), ("routing-holdout-156.jsonl", 0.94),
     ("routing-holdout-157.jsonl", 0.78), ("routing-holdout-158.jsonl", 0.935),
     ("routing-holdout-159.jsonl", 0.86), ("routing-holdout-160.jsonl", 0.91),
     ("routing-holdout-161.jsonl", 0.80), ("routing-holdout-162.jsonl", 0.95)]
)
def test_the_shipped_skills_route_the_later_dev_sets_above_their_floor(name, floor):
    """All written blind (68.7%, 78.0%, 65.7%, 69.3%, 79.1%, 80.6%, 68.9%, 79.1%, 88.2%, 84.0%, 84.7%,
    86.8%, 88.8%, 78.8%, 88.7%, 87.0%, 83.8%, 73.7%, 88.0%, 97.9%, 90.7%, 82.3%, 87.5%, 84.6%, 85.0%, 86.4%, 79.0%, 80.0%, 84.7%, 80.0%, 89.0%, 80.7%, 91.3%, 77.3%, 90.6%, 75.3%, 93.3%, 86.0%, 88.1%, 82.0%, 79.6%, 78.7%, 81.6%, 83.3%, 80.5%, 84.0%, 87.8%, 82.0%, 63.9%, 76.7%, 85.7%, 87.3%, 79.0%, 86.7%, 70.2%, 79.3%, 62.5%, 84.7%, 71.7%, 84.7%, 77.9%, 78.0%, 85.6%, 88.0%, 87.6%, 86.7%, 83.3%, 90.7%, 83.6%, 85.3% and 86.5% then; holdout-7 and -8 were tuned against in the
    ninth round, holdout-9 and -10 in the tenth, holdout-11 and -12 in the eleventh, holdout-13 and -14 in the twelfth, holdout-15 and -16 in the thirteenth, holdout-17 and -18 in the fourteenth, holdout-19 and -20 in the fifteenth, holdout-21 and -22 in the sixteenth, holdout-23 and -24 in the
    seventeenth, holdout-25 and -26 in the eighteenth, holdout-27 to -30 in the nineteenth, holdout-31 to -34 in the twentieth, holdout-35 to -38 in the twenty-first, holdout-39 and -40 in the twenty-second, holdout-41 and -42 in the twenty-third, holdout-43 and -44 in the twenty-fourth, holdout-45 to -48 in the twenty-fifth, holdout-49 to -52 in the twenty-sixth, after scoring 92.7%, 91.3%, 84.7% and 86.5% against round 25; holdout-53 and -54, written during it, 83.3% and 88.8% against round 26, in the twenty-seventh; holdout-55 and -56, written during the twenty-seventh, 90.7% and 87.9% against it, in the twenty-eighth; holdout-57 and -58, written during the twenty-eighth, 78.0% and 73.7% against it, in the twenty-ninth; holdout-59 and -60, written during the twenty-ninth, 84.7% and 74.4% against it, in the thirtieth; holdout-61 and -62, written during the thirtieth, 90.0% and 74.6% against it, in the thirty-first; holdout-63 to -66, written during the thirty-first, 93.3%, 80.0%, 91.3% and 85.4% against the thirtieth and 94.7%, 80.9%, 91.3% and 87.4% against the thirty-first, in the thirty-second; holdout-67 and -68, written during the thirty-second, 89.3% and 81.7% against the thirty-first and 89.3% and 82.4% against the thirty-second, in the thirty-third; holdout-69 and -70, written during the thirty-third, 79.3% and 85.8% against it, in the thirty-fourth; holdout-71 to -74, written during the thirty-fourth, 90.7%, 61.8%, 90.0% and 70.4% against the thirty-third; -71 and -72 tuned against in it, two of its rules from -74 after scoring; holdout-75 and -76, written during the thirty-fifth, 89.3% and 72.5% against it, -76 read for its rule h; holdout-77 and -78, written after, 89.3% and 77.9%, then read for a few words of vocabulary; holdout-79 and -80, written last, 88.0% and 79.7%, not tuned against; holdout-81 and -82, written blind
    after round 35 and scored once, 87.3% and 79.6%, not tuned against; holdout-83 (conversations about topics
    carried across turns) and -84, written blind after them, 93.6% and 96.7%, then read for round 36's two rules;
    holdout-85 (conversations) and -86, written blind after round 36 and scored once, 94.1% and 96.0% with
    the opinion, then read for round 37's rules; holdout-87 (conversations) and -88, written blind after
    round 37 and scored once, 87.7% and 92.0% with the opinion, then read for round 38's rules; holdout-89
    (conversations on #38's own inertia rule) and -90, written blind after round 38 and scored once, 97.7%
    and 93.3% with the opinion, then read for round 39's words; holdout-91 (conversations of people
    seldom written: a shop owner, a carer, a teenager, a new mother) and -92, written blind after round 39 and
    scored once, 68.7% and 76.0% with the opinion, then read for round 40's words; holdout-93 (conversations
    on the inertia rules, everyday people of the city) and -94, written blind during round 40 and scored once,
    79.2% and 93.3% with the opinion, then read for more words; holdout-95 (conversations of people in
    life's transitions) and -96, written blind last in round 40 and scored once, 80.9% and 77.3%, then read for
    more words; holdout-97 (conversations of an ordinary week) and -98, written blind after round 40 and
    scored once, 94.4% and 89.3%, then read for round 41's few words; holdout-99 (conversations of twenty
    working people) and -100, written blind after round 41 and scored once, 66.7% and 94.0% with the opinion,
    then read for round 42's words and look-ups; -99's writer kept only the turn before's topics on a
    follow-up and dropped a kept topic a message did not name, where the router keeps them, hence its
    low floor; holdout-101 (conversations of people seldom written: a police officer, a fisherman, a
    wedding musician, a farmer in a drought) and -102, written blind after round 42 and scored once,
    67.8% and 76.0% with the opinion, then read for round 43's words; holdout-103 (conversations of a
    truck driver, a manicurist, a streamer, a couple in IVF, a coffee grower) and -104, written blind
    after round 43 and scored once, 66.7% and 66.0% with the opinion, then read for round 44's words;
    holdout-105 (conversations of a fisherman, a musician playing weddings, a rancher, a US night nurse,
    a Chilean miner) and -106, written blind after round 44 and scored once, 67.1% and 79.3% with the
    opinion, then read for round 45's words; holdout-107 (conversations of an app driver, a garbage
    collector, a Haitian immigrant, a grandmother raising grandchildren) and -108, written blind after
    round 45 and scored once, 66.4% and 89.3% with the opinion, then read for round 46's words;
    holdout-109 (conversations of an açaí harvester, a Venezuelan mother in Roraima, a widower, a
    funeral director, an Australian fly-in fly-out miner, a Galician shellfish gatherer) and -110, written blind after round 46
    and scored once, 54.1% and 83.3% with the opinion, then read for round 47's words; holdout-111
    (conversations of a night watchman, a sugarcane cutter, a couple trying IVF, a Jehovah's Witness,
    a convert to Islam, a Canadian trucker, a Nigerian POS agent) and -112, written blind after round
    47 and scored once, 54.1% and 88.7% with the opinion, then read for round 48's words; holdout-113
    (conversations of a school cook, a garimpeiro, a hospital cleaner, a man on dialysis, a Buddhist,
    a Kenyan matatu conductor, a Jamaican higgler, a New Zealand shearer, a Bolivian miner) and -114,
    written blind after round 48 and scored once, 51.7% and 74.7% with the opinion, then read for
    round 49's words; holdout-115 (conversations of a retiree with a payroll loan, a lunchbox seller,
    a freelance designer, a woman divorcing, a laid-off tech worker, a Chilean shopper) and -116,
    written blind after round 49 from docs/routing-labelling.md alone and scored once, 91.2% and
    94.0% with the opinion, then read for round 50's words; holdout-117 (conversations on the
    inertia rules: follow-ups, feelings before and after a topic, returns, look-ups, lapses) and
    -118, written the same way after round 50 and scored once, 91.9% and 96.0% with the opinion,
    then read for round 51's words; holdout-119 (conversations of a manicurist, a night bus driver, a
    grandmother raising a grandson, a pastor's wife, a delivery rider hurt in a crash, a UK ward nurse,
    a Nigerian fabric trader, a Peruvian carrying the Lord of Miracles) and -120, written the same way
    after round 51 and scored once, 63.7% and 91.3% with the opinion, then read for round 52's words;
    holdout-121 (conversations of a hairdresser with a salon loan, a fisherman in the off-season, a
    carer after a stroke, a church treasurer, a Mexican street vendor in a savings circle, a burnt-out
    Spaniard) and -122, written the same way after round 52 and scored once, 67.6% and 94.7% with
    the opinion, then read for round 53's words; holdout-123 (conversations of a cashier in her first
    job, an Avon seller, a youth leader at church, a nursing student with a FIES debt, an ICU nurse, a
    Mexican taquero) and -124, written the same way after round 53 and scored once, 85.8% and 89.3%
    with the opinion, then read for round 54's words; holdout-125 (conversations of a woman with lupus,
    a grandfather scammed over Pix, a gym instructor with a knee injury, a social worker at a CRAS, a
    spiritist, a Nigerian selling shawarma) and -126, written the same way after round 54 and scored
    once, 76.0% and 95.3% with the opinion, then read for round 55's words; holdout-129 (conversations
    of a manicurist working from home, a retired teacher on INSS, a student before the ENEM, a pregnant
    woman, a delivery rider, a Venezuelan in Boa Vista, a widower, a man in debt to betting apps) and
    -130, written the same way after round 55 and scored once, 78.8% and 86.7% with the opinion, then
    read for round 56's words; -129's writer drops a kept domain that a new message does not name
    where the router keeps it, as -99's did; -96 labels going to university far from home
    a family matter alone, where since round 56 "fazer faculdade" is also the career's; holdout-131
    (conversations of a bricklayer, a carer of a father with Alzheimer's, a laid-off developer, a
    catechist, a man six months sober, a nanny, a woman leaving an abusive husband, a Muslim before
    Ramadan, a Mexican taquero) and -132, written the same way after round 56 and scored once, 71.5%
    and 90.0% with the opinion (75.9% and 90.0% on the patterns alone), then read for round 57's words;
    holdout-133 (conversations of a lottery-shop clerk, a shrimp farmer, a quilombola craftswoman, a
    woman in IVF, a father of twins, a Kardecist medium, a bullied teenager, a Nigerian tailor, a
    Peruvian miner, a Jewish woman before Yom Kippur) and -134, written the same way after round 57
    and scored once, 67.2% and 90.0% with the opinion (60.2% and 85.3% on the patterns alone), then
    read for round 58's words; holdout-135 (conversations of a fisherman, a coffee picker, a
    hairdresser, a choir singer before her first Sunday, an umbandista, a carer of a father with
    Alzheimer's, an Australian brickie, a Uruguayan with a business) and -136, written the same way
    after round 58 and scored once, 69.9% and 92.7% with the opinion (68.1% and 88.0% on the patterns
    alone), then read for round 59's words; holdout-137 (conversations of a soy farmer in Mato
    Grosso, a Nigerian trader, a single father of twins, a night-shift nurse, a street vendor, a
    widow learning the app, a Venezuelan in Roraima, a Hindu before a puja) and -138, and holdout-139
    (conversations of an Uber driver in debt, a man caring for his mother after a stroke, a
    burnt-out teacher, a Bolivian seamstress, a Latter-day Saint elder on mission, a Zen
    practitioner) and -140, written the same way after round 59 and scored once, 69.1%, 92.0%, 72.6%
    and 94.0% with the opinion (70.4%, 88.7%, 70.1% and 87.3% on the patterns alone), then read
    for round 60's words; holdout-143 (conversations of ordinary people in an ordinary week) and
    -144, written the same way after round 60 and scored once, 80.8% and 96.7% with the opinion
    (81.7% and 95.3% on the patterns alone), then read for round 61's words; holdout-145 (conversations
    of a bank clerk, a delivery rider, newly-weds, a Sunday-school helper, a carer of a mother) and -146,
    and holdout-147 (conversations on the specification's own scenarios: an expense then "pode
    registrar", a lasting fact, anxiety then the debts) and -148, written the same way after round 61 and
    scored once, 79.0%, 95.3%, 89.9% and 97.3% with the opinion (77.9%, 92.0%, 88.3% and 95.3% on the
    patterns alone), then read for round 62's rules and words; holdout-149 (conversations of a family's
    week: a working mother, a grandfather with diabetes, a freelancer with late invoices) and -150, and
    holdout-151 (conversations of new users trying the app: short orders, confirmations, corrections)
    and -152, written the same way after round 62 and scored once, 78.4%, 91.3%, 92.2% and 96.0% with
    the opinion (73.5%, 86.7%, 90.8% and 94.7% on the patterns alone), then read for round 63's words;
    holdout-153 (conversations of a pharmacist, a bus driver, a pregnant woman, a widower, a man
    quitting smoking) and -154, written the same way after round 63 and scored once, 77.7% and 93.3%
    with the opinion (80.9% and 89.3% on the patterns alone), then read for round 64's words;
    holdout-155 (conversations of people aged 50 to 70: pensions, grandchildren, check-ups, a small
    trade) and -156, and holdout-157 (conversations of young adults: a first job, flatmates, exams, a
    side hustle) and -158, written the same way after round 64 and scored once, 72.2%, 90.0%, 78.3% and
    95.3% with the opinion (69.8%, 86.7%, 72.2% and 94.0% on the patterns alone), then read for round
    65's rule i and words; holdout-159 (conversations of parents of young children and teenagers)
    and -160, and holdout-161 (conversations of workers on their feet or on the road: a nurse on
    night shifts, a courier, a hairdresser, a truck driver) and -162, written the same way during
    round 65 and scored once against it, 79.8%, 82.7%, 72.9% and 89.3% with the opinion (77.3%,
    80.7%, 70.4% and 84.7% on the patterns alone), then read for round 66's words);
    now floors, of the patterns alone (the learned opinion is measured below)
    against regressions. holdout-95, -109, -129 and -133 label money made or spent while the work
    is spoken of finance alone, where holdout-111, -123, -131, -137 and -155 to -157 join it to the
    work; rule i (round 65) follows the latter, and their floors were lowered. holdout-34 labels a look-back narrowing (a turn that fires one of
    two topics kept drops the other) that the earlier sets do not, hence its low floor. dev-3, dev-6 and dev-8 label a quarrel alone relationships only, which
    now also brings the counselor, and dev-3, dev-10, dev-11 and holdout-3 label a relative in
    hospital with health, which is now the user's own body only (docs/skills.md); dev-2, dev-10
    and dev-13 label a relative's fever, diagnosis or surgery with health, which since the eighth
    round is the relative's body, not the user's (skills.matching, RELATIVES). dev-13 and dev-21 keep the feeling on a look-up after a message that said both ("I'm stressed about my car loan", then "how much do I still owe on it?"), where holdout-44 and -54 drop it; since the twenty-seventh round a look-up drops it. dev-2 to dev-5 were labelled for a new user (a
    line without preferences has every optional skill off: church and psalms are general there).
    dev-30 was written blind in the thirty-fourth round for the learned opinion's review: short
    everyday messages (hedged symptoms, meals and treats, states that are no feeling); the
    patterns scored it 87.5% before and after that round."""
    skills = shipped_definitions()
    new_user = name in NEW_USER_LABELLED_SETS
    report = evaluate(load_jsonl(REPO / "tests" / "data" / name), skills, unstated_preferences_on=not new_user)
    assert report.exact_match >= floor, format_report(report)
