"""The frozen recall set over real memory files (`../shared/corpus/hermes-memories`).

Written before any tuning of recall by meaning, and not changed since: `bench_recall.py` prints its
digest beside the table, so a changed set shows. The files themselves stay where they are (they are
public but personal): a question here is written anew, in its own words, and names the entry it is
about by file and position (`§`-separated, counting from 0), never by its text.

Each home profile is one repository's pair of files; each question is asked of its own profile.
The questions that name nothing are asked of every profile: the hook must stay quiet on each.
"""

from __future__ import annotations

import hashlib
import json

# profile -> its files in the corpus (MEMORY.md, USER.md)
PROFILES = {
    "shared": ("", "3304711297__shared-agent-memory__memories_USER.md"),
    "laowang": ("", "54laowang__hermes-agent__memories_USER.md"),
    "notebook": ("", "9to5ai__hermes-agent-backup__memories_USER.md"),
    "trading": ("AlphaSp3cs__ZeusLaptopWin__memories_MEMORY.md", ""),
    "flywheel": ("ChangHui666888__hermes-agent-backup__memories_MEMORY.md", "ChangHui666888__hermes-agent-backup__memories_USER.md"),
    "gold": ("Cyrus1993729__cyhermes_agent__memories_MEMORY.md", "Cyrus1993729__cyhermes_agent__memories_USER.md"),
    "quant": ("HanSJTU__Fin-Memory__memories_MEMORY.md", ""),
    "engineer": ("HuskyDanny__hermes-agent-config__memories_MEMORY.md", ""),
    "governance": ("Junkfooooood__hermes-governance__memories_MEMORY.md", ""),
    "hardware": ("Michael-Lfx__hermes-agent-ultra__.hermes_memories_MEMORY.md", ""),
    "secretary": ("Mrxu-zhao__AIAgent__.hermes_memories_MEMORY.md", ""),
    "rednote": ("ZhangZane-Westlake__Hermes-Self-Evolution__memories_MEMORY.md", ""),
    "nas": ("anlen123__hermes-config__memories_MEMORY.md", "anlen123__hermes-config__memories_USER.md"),
    "learning": ("", "baowenjie1978__shoucang__memories_USER.md"),
    "msys": ("kimfatman__growth-os__.hermes_memories_MEMORY.md", ""),
    "feishu": ("shlwsh__hermes-agent__.hermes_memories_MEMORY.md", ""),
}

# (kind, profile, question, the entries that answer it: ("memory" or "user" file, index))
# kinds: zh (a Chinese question, a Chinese entry), en (English, English), cross (one language
# asking about the other).
NAMED: list[tuple[str, str, str, list[tuple[str, int]]]] = [
    # Chinese about Chinese
    ("zh", "gold", "怎么结束一个卡住的进程才安全？", [("memory", 0)]),
    ("zh", "gold", "谷歌搜索要验证码，该走哪个代理？", [("memory", 2)]),
    ("zh", "gold", "记忆和现实对不上的时候我该怎么做？", [("memory", 7)]),
    ("zh", "gold", "电报机器人连不上是什么原因", [("memory", 10)]),
    ("zh", "gold", "网页搜索后端配的是哪家？", [("memory", 13)]),
    ("zh", "gold", "高德静态地图的参数叫什么", [("memory", 14)]),
    ("zh", "gold", "我的应急金有多少？", [("user", 9)]),
    ("zh", "gold", "我可以同时开好几个任务吗？", [("user", 10)]),
    ("zh", "gold", "用户喊停的时候应该怎么处理", [("user", 13)]),
    ("zh", "gold", "我买卖黄金的频率是多少", [("user", 0)]),
    ("zh", "nas", "容器里怎么访问宿主机上的服务？", [("memory", 0)]),
    ("zh", "nas", "网盘搜索应该用哪个脚本？", [("memory", 1)]),
    ("zh", "nas", "怎么重启网关又不丢掉正在发的回复", [("memory", 3)]),
    ("zh", "nas", "推送代码时提示权限被拒绝怎么解决", [("memory", 4)]),
    ("zh", "nas", "能不能为了让测试通过去改测试代码？", [("user", 2), ("user", 3)]),
    ("zh", "nas", "回复里可以夹英文缩写吗？", [("user", 4)]),
    ("zh", "learning", "我们之间怎么称呼对方？", [("user", 2)]),
    ("zh", "learning", "学习计划进行到第几天了", [("user", 0)]),
    ("zh", "secretary", "团队调度脚本的参数是哪个", [("memory", 1)]),
    ("zh", "secretary", "任务做完以后要做什么反思", [("memory", 2)]),
    ("zh", "flywheel", "抓取流水线是并发跑的吗", [("memory", 5)]),
    ("zh", "flywheel", "在视窗系统上进程锁怎么实现", [("memory", 7)]),
    ("zh", "flywheel", "每天花费的上限是多少", [("user", 0), ("memory", 3)]),
    ("zh", "laowang", "用户说马上行动的时候应该怎么做", [("user", 0)]),
    ("zh", "hardware", "企业微信的机器人能在群里艾特人吗", [("memory", 6)]),
    # English about English
    ("en", "notebook", "Which NotebookLM formats should I always generate?", [("user", 1)]),
    ("en", "notebook", "When the user says post this, which platform is meant?", [("user", 3)]),
    ("en", "trading", "Am I allowed to schedule automatic runs?", [("memory", 1)]),
    ("en", "trading", "Which brokers does the user trade on?", [("memory", 2)]),
    ("en", "quant", "How many validation gates does the strategy research engine have?", [("memory", 1)]),
    ("en", "quant", "Where are the quant repositories cloned?", [("memory", 0)]),
    ("en", "engineer", "What timezone is the user in?", [("memory", 2)]),
    ("en", "engineer", "What is still missing for the Telegram migration?", [("memory", 7)]),
    ("en", "governance", "Why did memory search come back empty?", [("memory", 1)]),
    ("en", "governance", "Why was image generation blocked?", [("memory", 3)]),
    ("en", "rednote", "How do I run the tests of the Flask app?", [("memory", 1)]),
    ("en", "rednote", "Which module does image recognition?", [("memory", 0)]),
    ("en", "msys", "Why does every terminal tool fail on this Windows machine?", [("memory", 0), ("memory", 1), ("memory", 2)]),
    ("en", "msys", "How can the null device be recreated?", [("memory", 1), ("memory", 2)]),
    ("en", "shared", "How should I read a very large file?", [("user", 6)]),
    ("en", "shared", "What do I do after hitting anti-bot checks while scraping?", [("user", 4)]),
    ("en", "shared", "How do I mark notifications done once CI is green?", [("user", 9)]),
    ("en", "shared", "Should several independent requests be handled one after another?", [("user", 3)]),
    ("en", "hardware", "What happens if I kill the MCP server process?", [("memory", 5)]),
    ("en", "hardware", "Why does the clarify tool block the agent?", [("memory", 8)]),
    ("en", "flywheel", "Which proxy does the Anthropic provider go through?", [("memory", 0)]),
    ("en", "flywheel", "Where does the wiki pipeline live?", [("memory", 4)]),
    ("en", "hardware", "The user gave a Beijing time for a cron job; what do I do?", [("memory", 4)]),
    ("en", "engineer", "Does the user want explanations with concrete examples?", [("memory", 3), ("memory", 4)]),
    # one language asking about the other
    ("cross", "engineer", "用户在哪个时区？", [("memory", 2)]),
    ("cross", "engineer", "用户是做什么工作的？", [("memory", 1)]),
    ("cross", "trading", "可以设置定时自动运行吗？", [("memory", 1)]),
    ("cross", "msys", "为什么终端命令全都失败了？", [("memory", 0), ("memory", 1), ("memory", 2)]),
    ("cross", "shared", "爬虫遇到反爬机制该怎么办？", [("user", 4)]),
    ("cross", "shared", "几个互不相关的请求应该一个一个处理吗？", [("user", 3)]),
    ("cross", "notebook", "用户喜欢什么样的回复？", [("user", 0)]),
    ("cross", "rednote", "我的技能和记忆快照存在哪个仓库？", [("memory", 2)]),
    ("cross", "hardware", "把启动时连上的服务器进程杀掉会有什么后果？", [("memory", 5)]),
    ("cross", "governance", "复杂的多智能体任务用什么治理架构？", [("memory", 2)]),
    ("cross", "quant", "量化策略研究引擎有几道验证关卡？", [("memory", 1)]),
    ("cross", "flywheel", "大模型供应商走的是哪个代理？", [("memory", 0)]),
    ("cross", "gold", "How do I kill a stuck process safely?", [("memory", 0)]),
    ("cross", "gold", "How much is my emergency fund?", [("user", 9)]),
    ("cross", "learning", "What do we call each other?", [("user", 2)]),
    ("cross", "nas", "How do I restart the gateway without losing the reply?", [("memory", 3)]),
    ("cross", "nas", "Can replies contain English abbreviations?", [("user", 4)]),
    ("cross", "gold", "Can I work on several tasks at once?", [("user", 10)]),
    ("cross", "secretary", "What should I reflect on after finishing a task?", [("memory", 2)]),
    ("cross", "flywheel", "What is the daily spending cap?", [("user", 0), ("memory", 3)]),
    ("cross", "gold", "What if a memory contradicts what I see?", [("memory", 7)]),
    ("cross", "learning", "Which day of the learning plan is it today?", [("user", 0)]),
    ("cross", "laowang", "What should happen when the user says act now?", [("user", 0)]),
    ("cross", "gold", "How often do I trade gold?", [("user", 0)]),
]

NAMES_NOTHING = [
    "今天适合出门跑步吗",
    "帮我写一首关于秋天的诗",
    "给我讲个笑话",
    "一加一等于几",
    "推荐一部好看的电影",
    "怎么煮米饭",
    "周末去哪里玩比较好",
    "你好",
    "帮我算一下百分之十五的小费",
    "解释一下光合作用",
    "月亮离地球有多远",
    "What's the capital of France?",
    "Tell me a joke about cats.",
    "How do I make pancakes?",
    "What's 17 times 23?",
    "Write a haiku about the sea.",
    "Who won the World Cup in 2018?",
    "Recommend a good science fiction novel.",
    "Thanks, that's all for now.",
    "What's a good name for a goldfish?",
    "How do I tie a tie?",
    "Good morning!",
]


def digest() -> str:
    """The set's SHA-256 (first 12 hex): what the benchmark prints, so a changed set shows."""
    text = json.dumps([PROFILES, NAMED, NAMES_NOTHING], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
