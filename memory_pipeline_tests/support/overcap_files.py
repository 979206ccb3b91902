# ruff: noqa: E501 - one memory entry per line, as the files hold them
"""Memory files over their cap, shaped like the public Hermes memory files users share: Chinese,
English and both mixed, with numbered points (①②), rules ("when X, do Y"), code spans, URLs,
ports, paths and tokens. What compaction is tested on."""

from __future__ import annotations

CHINESE = [
    "**代理配置**：本机代理端口7890，API 端口随机（查 config.yaml），认证用 ?token=X 附在 URL 后；代理挂了先重启 clash 再查日志。",
    "**记忆分层**：①计划型：提前写好的规则和清单，放在 MEMORY.md；"
    "②涌现型：对话中发现的偏好，先记在 USER.md，稳定后再合并；③临时型：当天有效，不写入文件。",
    "**部署规则**：如果 CI 是红的，绝不部署；先在 #ops 频道说明原因，等修复合并后再走发布流程，发布窗口是周二和周四 20:00。",
    "**服务器**：腾讯云轻量 43.138.221.174:8000 跑 API，广州机房；阿里云 ECS 跑数据库，每天 03:00 全量备份到 OSS，保留 30 天。",
    "**写作风格**：回答先给结论，再给理由；中文回答，术语保留英文；不要用表情符号；代码块标明语言；超过三段就加小标题。",
    "**机房巡检**：每周三凌晨检查曙光机柜的温湿度传感器，温度超过 28℃ 要开工单，湿度低于 30% 要开加湿器，结果记在巡检表里。",
    "**家庭网络**：NAS 在 192.168.1.20，Jellyfin 端口 8096，Home Assistant 在 8123；路由器每月第一个周日 04:00 自动重启。",
    "**读书笔记**：《思考，快与慢》读到第 12 章；系统一快而直觉，系统二慢而费力；书里的锚定效应实验值得再看一遍，做成卡片。",
    "**周报**：每周五 17:00 前交，模板在 ~/notes/weekly.md，写三块：本周完成、下周计划、风险；发到 #team 频道并抄送经理。",
    "**学习计划**：每天 30 分钟 Rust，按《Rust 程序设计语言》顺序读，周末做 rustlings 练习；遇到生命周期问题先画借用图再问。",
    "**工具偏好**：编辑器用 Neovim，插件管理用 lazy.nvim；终端用 WezTerm；Shell 是 fish；Git 提交信息用中文，标题不超过 50 字。",
    "**健康**：每天喝水 2 升，午饭后散步 20 分钟；晚上 23:30 前睡；周一、三、五跑步 5 公里，配速 6:00 左右，膝盖不舒服就停。",
    "**旅行**：下个月去成都出差，订了 10 月 12 日 CA4113 的航班，酒店在春熙路附近；记得带转换插头和工牌，报销要贴发票。",
    "**订阅**：ChatGPT Plus 每月 20 美元，GitHub Copilot 每月 10 美元，iCloud 200GB 每月 21 元；每年 1 月检查一次是否还需要。",
]

ENGLISH = [
    "**HTTP client**: use fetch(undici) with a 30s timeout and retry 3 times with backoff; log failures to ~/logs/http.log, never the request body.",
    "**Deploy rule**: when the CI is red, never deploy; ask in #ops and wait for the fix to merge. Release windows are Tue and Thu at 20:00 UTC.",
    "**Docs site**: the guide lives at https://docs.example.org/guide?lang=en and is rebuilt on every push to main; preview builds go to Netlify.",
    "**Code review**: blocking comments vs nits; nits never block a merge. Reply within 24 hours. PRs over 400 lines get split before review.",
    "**On-call**: primary rotates every Monday at 09:00; escalate to the secondary after 15 minutes; page via PagerDuty, never by phone at night.",
    "**Python env**: manage it with uv, `uv venv .venv && uv pip install -e '.[dev]'`; run pytest with `-x -q`; format with ruff, not black.",
    "**Writing style**: lead with the answer, then the reasons. Short paragraphs, no emoji. Use British spelling in docs, American in code comments.",
    "**Backups**: restic snapshots to B2 every night at 02:30, kept 7 daily, 4 weekly, 12 monthly. A restore drill runs on the first Sunday of each month.",
    "**Meetings**: no meetings before 10:00 or on Fridays. Notes go to ~/notes/meetings/YYYY-MM-DD.md and action items are tagged @todo for the weekly grep.",
    "**Home lab**: the NAS is at 192.168.1.20, Jellyfin on port 8096, Home Assistant on 8123. The router reboots itself at 04:00 on the first Sunday.",
    "**Reading**: halfway through Designing Data-Intensive Applications, chapter 7 on transactions next. Keep notes as Anki cards, five a chapter at most.",
    "**Travel**: Berlin trip on 12 Oct, flight LH2471 at 07:15 from LHR; hotel near Alexanderplatz. Bring the EU plug adapter and the badge.",
    "**Subscriptions**: Kagi 10 USD a month, Fastmail 5 USD, 1Password family 60 USD a year; review them every January and cancel what went unused.",
    "**Rust learning**: 30 minutes a day with the Rust book in order, rustlings at the weekend; when the borrow checker complains, draw the borrows first.",
    "**Editor**: Neovim with lazy.nvim, WezTerm, fish shell. Commit messages in the imperative mood, subject line under 50 characters, body wrapped at 72.",
]

MIXED = [
    "**Tailscale**：NAS 通过 nas.tail 访问，exit node 是家里的 N100 小主机；如果连不上，先 `tailscale status` 看是否在线，再重启 tailscaled。",
    "**Hermes 配置**：config.yaml 里 memory_char_limit 设 2200，user_char_limit 设 1375；plugins.hermes-memory-store.db_path 指向 ~/.hermes/memory_store.db。",
    "**CI**: GitHub Actions 跑 lint + test，矩阵 Python 3.11/3.12/3.13；当 main 红了，先 revert 再修，不要在 main 上直接 force-push。",
    "**Ollama**：本地模型用 qwen2.5:7b-instruct，地址 http://127.0.0.1:11434，温度 0；远程主机一律不用，记忆里有个人信息。",
    "**Standup**：每天 9:45 站会，15 分钟以内；周五改成书面周报，发在 #team；请假要提前在日历上标 OOO。",
    "**数据库**：Postgres 16 在 db.internal:5432，只读账号 reader，密码在 1Password 的 Infra 库；慢查询超过 500ms 要记到 #perf。",
    "**前端**：Next.js 14 + Tailwind；组件放 web/components，页面放 web/app；提交前跑 `pnpm lint && pnpm test`，截图放 PR 描述里。",
    "**日志**：服务日志在 /var/log/atlas/*.log，按天轮转，保留 14 天；排查问题时先 grep request_id，再看 Grafana 的 p95 延迟面板。",
    "**Secrets 规则**：当你需要 API key 时，从环境变量读，不要写进代码或 MEMORY.md；泄露了就立刻在控制台 rotate，并在 #security 报告。",
    "**团队**：张伟负责后端，李娜负责前端，王强负责运维；有问题先在 #team 里 @ 对应的人，紧急情况打电话。",
    "**Benchmark**：跑 `make bench` 前关掉其他程序，至少跑三次取中位数；结果写进 docs/benchmarks.md，注明日期、机器和 commit。",
    "**Release**：版本号用 CalVer，格式 YYYY.MM.N；打 tag 后 CI 自动发布到 PyPI，changelog 在 CHANGES.md，每条以动词开头。",
]

FILES = {"chinese": CHINESE, "english": ENGLISH, "mixed": MIXED}
