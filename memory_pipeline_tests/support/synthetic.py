"""Synthetic memory entries for tests and benchmarks: deterministic, mixed Chinese/English,
shaped like real entries (a bold title, rules, paths, a number or two)."""

from __future__ import annotations

import random

_EN = (
    "deploy review branch cache token pipeline schema backup rollback latency index mirror queue "
    "release ticket script config install profile session budget report"
).split()
_ZH = "部署 评审 分支 缓存 管道 备份 回滚 延迟 索引 镜像 队列 发布 脚本 配置 安装 会话 预算 报告 规则 偏好".split()


def synthetic_entry(rng: random.Random, index: int) -> str:
    words = [rng.choice(_EN) if rng.random() < 0.5 else rng.choice(_ZH) for _ in range(rng.randint(8, 20))]
    path = f"~/work/{rng.choice(_EN)}/{index}.md" if rng.random() < 0.3 else ""
    return f"**Topic {index} {rng.choice(_ZH)}**: {' '.join(words)} {path} #{index}".strip()


def synthetic_entries(count: int, seed: int = 7, start: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [synthetic_entry(rng, start + i) for i in range(count)]


def mutate(entries: list[str], seed: int, edit=0.1, remove=0.05, add=0.05) -> list[str]:
    """A later version of a file: some entries edited (similar text), some removed, some added."""
    rng = random.Random(seed)
    out = []
    for entry in entries:
        roll = rng.random()
        if roll < remove:
            continue
        out.append(f"{entry} 更新{seed}" if roll < remove + edit else entry)
    out.extend(synthetic_entries(int(len(entries) * add), seed=seed, start=100_000 * (seed + 1)))
    rng.shuffle(out)
    return out
