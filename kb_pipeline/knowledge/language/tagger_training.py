"""Trains the part-of-speech tagger's weights (tagger.py) on Universal Dependencies treebanks, and
writes taggers/<lang>.json.gz, the licence texts beside them and taggers/README.md (what each file
derives from, how accurate it is, how to reproduce it).

    python -m kb_pipeline.knowledge.language.tagger_training --ud ../shared/ud --out kb_pipeline/knowledge/language/taggers

Only the dev and test splits of the treebanks are at hand (../shared/ud/README.md), so each
language trains on the larger of the two and is measured on the other, through tagger.py itself
with the pruned, rounded weights it ships. Deterministic: a fixed number of passes over sentences
shuffled with a fixed seed, and gzip without a timestamp, so re-running gives the same files.

Tokens are as the caller's tokeniser prints them: a multiword token ("du" = de + le, "zum",
"della") is one token with the tag of its first part; English clitics stay split as UD splits
them ("do" + "n't", "company" + "'s").
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .tagger import (
    END,
    START,
    START2,
    UPOS,
    history_features,
    neighbour_features,
    read_weights,
    word_features,
)

# Language → treebank prefix of its files in the UD directory.
TREEBANKS = {"en": "en_ewt", "de": "de_gsd", "fr": "fr_gsd", "es": "es_gsd"}
# Suffix features 1..n: German, French and Spanish inflect more, so a fourth letter pays.
SUFFIXES = {"en": 3, "de": 4, "fr": 4, "es": 4}
ITERATIONS = 10
SEED = 20240607
# The tag dictionary: words frequent and unambiguous enough to skip scoring.
TAGDICT_MIN_COUNT = 20
TAGDICT_MIN_SHARE = 0.97
# Averaged weights smaller than this barely move a score; dropping them keeps the files small.
PRUNE_BELOW = 0.01
COMMAND = "python -m kb_pipeline.knowledge.language.tagger_training --ud ../shared/ud --out kb_pipeline/knowledge/language/taggers"

Sentence = tuple[list[str], list[str]]


def _tokens(rows: list[list[str]], language: str) -> Sentence:
    """One sentence's tokens and tags from its CoNLL-U rows (multiword tokens as described above)."""
    # Apostrophes straight, as tagger.tag reads them.
    rows = [[r[0], r[1].replace("\u2019", "'"), *r[2:]] for r in rows]
    by_id = {int(r[0]): r for r in rows if r[0].isdigit()}
    ranges = {int(r[0].split("-")[0]): (int(r[0].split("-")[1]), r[1]) for r in rows if "-" in r[0]}
    words: list[str] = []
    tags: list[str] = []
    covered = 0
    for i in sorted(by_id):
        if i <= covered:
            continue
        if i in ranges:
            end, surface = ranges[i]
            parts = [by_id[k][1] for k in range(i, end + 1)]
            # English: the caller splits "n't" and "'s" off as UD does; "cannot", "gonna" stay whole.
            if not (language == "en" and all("'" in p for p in parts[1:])):
                words.append(surface)
                tags.append(by_id[i][3])
                covered = end
                continue
        words.append(by_id[i][1])
        tags.append(by_id[i][3])
    return words, tags


def read_conllu(path: Path, language: str) -> tuple[list[Sentence], int]:
    """The sentences of a gzipped CoNLL-U file as (tokens, UPOS tags), and its count of syntactic
    words (the treebank's own count, lines with a whole-number ID)."""
    sentences: list[Sentence] = []
    rows: list[list[str]] = []
    count = 0
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in [*lines, "\n"]:
            line = line.rstrip("\n")
            if not line:
                if rows:
                    sentences.append(_tokens(rows, language))
                rows = []
            elif not line.startswith("#"):
                row = line.split("\t")
                if "." not in row[0]:  # an empty node of the enhanced graph: no token
                    rows.append(row)
                    count += row[0].isdigit()
    return sentences, count


class AveragedPerceptron:
    """Honnibal's averaged perceptron: weights, and for each weight its running total and when it
    last changed, so averaging costs nothing per step."""

    def __init__(self, tags: Sequence[str]) -> None:
        self.tags = tuple(tags)
        self.weights: dict[str, dict[str, float]] = {}
        self._totals: defaultdict[tuple[str, str], float] = defaultdict(float)
        self._stamps: defaultdict[tuple[str, str], int] = defaultdict(int)
        self._step = 0

    def predict(self, features: Iterable[str]) -> str:
        scores = dict.fromkeys(self.tags, 0.0)
        for feature in features:
            for tag, weight in self.weights.get(feature, {}).items():
                scores[tag] += weight
        return max(self.tags, key=scores.__getitem__)

    def update(self, truth: str, guess: str, features: Iterable[str]) -> None:
        self._step += 1
        if truth == guess:
            return
        for feature in features:
            weights = self.weights.setdefault(feature, {})
            for tag, change in ((truth, 1.0), (guess, -1.0)):
                key = (feature, tag)
                weight = weights.get(tag, 0.0)
                self._totals[key] += (self._step - self._stamps[key]) * weight
                self._stamps[key] = self._step
                weights[tag] = weight + change

    def averaged(self) -> dict[str, dict[str, float]]:
        averaged: dict[str, dict[str, float]] = {}
        for feature, weights in self.weights.items():
            for tag, weight in weights.items():
                key = (feature, tag)
                total = self._totals[key] + (self._step - self._stamps[key]) * weight
                averaged.setdefault(feature, {})[tag] = total / self._step
        return averaged


def tag_dictionary(sentences: list[Sentence]) -> dict[str, str]:
    counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for words, tags in sentences:
        for word, tag in zip(words, tags):
            counts[word][tag] += 1
    tagdict = {}
    for word, by_tag in counts.items():
        tag, n = by_tag.most_common(1)[0]
        total = sum(by_tag.values())
        if total >= TAGDICT_MIN_COUNT and n / total >= TAGDICT_MIN_SHARE:
            tagdict[word] = tag
    return tagdict


def train(sentences: list[Sentence], language: str, iterations: int, seed: int) -> dict[str, Any]:
    """The weights file's content: tags, tag dictionary and pruned, rounded averaged weights."""
    suffixes = SUFFIXES[language]
    tagdict = tag_dictionary(sentences)
    model = AveragedPerceptron(UPOS)
    # A token's features but the tag history do not change between passes: computed once. A word
    # in the tag dictionary gets its tag there without scoring, as at inference.
    tokens: list[list[tuple[str, str | None, list[str]]]] = []
    for words, tags in sentences:
        context = [START, *words, END]
        tokens.append(
            [
                (truth, tagdict[word], [])
                if word in tagdict
                else (
                    truth,
                    None,
                    word_features(word, i == 0, suffixes)
                    + neighbour_features(context[i], "-1")
                    + neighbour_features(context[i + 2], "+1"),
                )
                for i, (word, truth) in enumerate(zip(words, tags))
            ]
        )
    rng = random.Random(seed)
    for _ in range(iterations):
        rng.shuffle(tokens)
        for sentence in tokens:
            p1, p2 = START, START2
            for truth, known, features in sentence:
                if known is None:
                    full = features + history_features(p1, p2)
                    guess = model.predict(full)
                    model.update(truth, guess, full)
                else:
                    guess = known
                p2, p1 = p1, guess
    weights = {}
    for feature, by_tag in sorted(model.averaged().items()):
        kept = {tag: round(w, 3) for tag, w in sorted(by_tag.items()) if abs(w) >= PRUNE_BELOW}
        if kept:
            weights[feature] = kept
    return {"tags": list(UPOS), "suffixes": suffixes, "tagdict": dict(sorted(tagdict.items())), "weights": weights}


def accuracy(weights: bytes, sentences: list[Sentence]) -> tuple[float, float]:
    """Token accuracy of a weights file through tagger.py, and its speed in tokens a second."""
    model = read_weights(weights)
    correct = total = 0
    started = time.perf_counter()
    for words, tags in sentences:
        correct += sum(g == t for g, t in zip(model.tag(words), tags))
        total += len(tags)
    return correct / total, total / (time.perf_counter() - started)


def treebank_versions(ud: Path) -> dict[str, tuple[str, str]]:
    """Treebank prefix → (name, commit), as the UD directory's README records them."""
    text = (ud / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"`(\w+)-ud-\{dev,test\}\.conllu\.gz` \| (UD_[\w-]+) \(commit (\w+)\)", text)
    return {prefix: (name, commit) for prefix, name, commit in found}


def readme(rows: list[dict[str, Any]], iterations: int, seed: int) -> str:
    table = [
        "| language | file | treebank | commit | trained on | iterations | measured on | accuracy | size (bytes) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        table.append(
            f"| {r['language']} | `{r['file']}` | {r['treebank']} | {r['commit']} | {r['train']} ({r['train_words']:,} words)"
            f" | {iterations} | {r['test']} ({r['test_tokens']:,} tokens) | {r['accuracy']:.4f} | {r['size']:,} |"
        )
    licences = ", ".join(f"`{r['prefix']}.LICENSE.txt`" for r in rows)
    return f"""# Part-of-speech tagger weights

Generated by `kb_pipeline/knowledge/language/tagger_training.py` (do not edit by hand); reproduce
every file here with `make taggers`, that is:

    {COMMAND}

Averaged-perceptron weights for `kb_pipeline/knowledge/language/tagger.py`, one file per language,
each trained on one split of a Universal Dependencies treebank ({iterations} passes, sentences
shuffled with seed {seed}) and measured on the other split, the one it was not trained on (only
the dev and test splits were available). Accuracy is the share of tokens given their gold UPOS tag,
with the shipped (pruned, rounded) weights; a multiword token ("du", "zum", "del") counts as one
token with the tag of its first part.

{chr(10).join(table)}

Italian (`it`) has no weights file: tagger.py tags it by rule (a closed-class lexicon and suffix
rules), there being no Italian treebank to train on.

## Licence

The treebanks are licensed under Creative Commons Attribution-ShareAlike 4.0 International
(CC BY-SA 4.0); their licence texts are copied here:
{licences}.

The weights files are a derived work of the treebank named beside each (at the commit given) and
are distributed under the same licence, CC BY-SA 4.0 (ShareAlike): whoever shares them or a work
derived from them must do so under CC BY-SA 4.0, with this attribution. Source of the treebanks: the Universal Dependencies
project, https://github.com/UniversalDependencies (UD_English-EWT, UD_German-GSD, UD_French-GSD,
UD_Spanish-GSD).
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--ud", type=Path, required=True, help="the directory of the UD treebanks (*.conllu.gz)")
    parser.add_argument("--out", type=Path, required=True, help="where to write <lang>.json.gz and README.md")
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--languages", nargs="*", default=list(TREEBANKS), choices=list(TREEBANKS))
    args = parser.parse_args(argv)
    versions = treebank_versions(args.ud)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for language in args.languages:
        prefix = TREEBANKS[language]
        splits = {split: read_conllu(args.ud / f"{prefix}-ud-{split}.conllu.gz", language) for split in ("dev", "test")}
        # The larger split (by the treebank's word count) trains; on a tie, dev.
        train_split = max(("dev", "test"), key=lambda s: (splits[s][1], s == "dev"))
        test_split = "test" if train_split == "dev" else "dev"
        started = time.perf_counter()
        data = train(splits[train_split][0], language, args.iterations, args.seed)
        trained = time.perf_counter() - started
        blob = gzip.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 9, mtime=0)
        path = args.out / f"{language}.json.gz"
        path.write_bytes(blob)
        shutil.copyfile(args.ud / f"{prefix}.LICENSE.txt", args.out / f"{prefix}.LICENSE.txt")
        test_sentences = splits[test_split][0]
        score, speed = accuracy(blob, test_sentences)
        name, commit = versions[prefix]
        rows.append(
            {
                "language": language,
                "prefix": prefix,
                "file": path.name,
                "treebank": name,
                "commit": commit,
                "train": train_split,
                "train_words": splits[train_split][1],
                "test": test_split,
                "test_tokens": sum(len(words) for words, _ in test_sentences),
                "accuracy": score,
                "size": len(blob),
            }
        )
        print(
            f"{language}: trained on {name} {train_split} ({trained:.1f} s), accuracy on {test_split} {score:.4f},"
            f" {len(data['weights']):,} features, {len(data['tagdict']):,} words in the tag dictionary,"
            f" {len(blob) / 1e6:.2f} MB, {speed:,.0f} tokens/s",
            flush=True,
        )
    (args.out / "README.md").write_text(readme(rows, args.iterations, args.seed), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
