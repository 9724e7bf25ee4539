#!/usr/bin/env python3
"""Writes kcurate's bundled sample corpora (CC0; every sentence here was written for this
project from the templates below). Deterministic: re-running gives the same bytes.

    python3 data-samples/make_samples.py

The files are committed; this script documents how they were made and lets anyone extend
them. Planted defects (PII, malformed lines, a refused licence) are listed in README.md.
"""
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261123)

def w(path, text, mode="w"):
    p = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8", newline="") as f:
        f.write(text)

# ---------------------------------------------------------------- news (formal, JSONL)
cities = ["서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "수원", "전주"]
presses = ["연합뉴스", "한빛일보", "새벽신문", "누리경제", "온누리방송"]
reporters = ["김민준", "이서연", "박지후", "최하은", "정도윤", "강서준", "윤지아", "장예준"]
topics = {
    "경제": [
        "{c}시는 올해 지역 소상공인 지원 예산을 {n}억 원으로 늘렸다고 밝혔다.",
        "한국은행은 기준금리를 연 {p}%로 동결했다.",
        "수출 증가세가 석 달째 이어지면서 무역수지가 흑자로 돌아섰다.",
        "전문가들은 하반기 내수 회복 속도가 더딜 것으로 내다봤다.",
        "정부는 물가 안정을 위해 농산물 비축 물량을 {n}천 톤 풀기로 했다.",
    ],
    "사회": [
        "{c}시 교육청은 다음 달부터 초등학생 돌봄 교실을 오후 8시까지 운영한다고 발표했다.",
        "경찰은 사고 원인을 조사하고 있으며 인명 피해는 없는 것으로 확인됐다.",
        "시민단체는 보행자 안전을 위한 대책 마련을 촉구했다.",
        "이번 조치로 약 {n}만 명의 주민이 혜택을 받을 것으로 예상된다.",
        "관계자는 재발 방지를 위해 점검을 강화하겠다고 말했다.",
    ],
    "IT과학": [
        "국내 연구진이 전력 소모를 절반으로 줄인 반도체 소자를 개발했다.",
        "이 기술은 스마트폰과 웨어러블 기기에 폭넓게 쓰일 수 있다.",
        "연구 결과는 국제 학술지에 게재됐다.",
        "정부는 인공지능 인재 {n}천 명을 양성하는 계획을 내놓았다.",
        "업계는 데이터 규제가 완화되면 새로운 서비스가 늘어날 것으로 본다.",
    ],
    "스포츠": [
        "{c} 연고 구단이 연장 접전 끝에 3대 2로 승리했다.",
        "주장은 경기 후 인터뷰에서 팬들의 응원 덕분이라고 말했다.",
        "대표팀은 다음 주 평가전을 앞두고 소집 훈련에 들어갔다.",
        "이번 시즌 관중 수는 지난해보다 {n}% 늘었다.",
        "감독은 젊은 선수들의 성장이 가장 큰 수확이라고 평가했다.",
    ],
    "생활문화": [
        "{c}에서 열린 전통 음식 축제에 주말 동안 {n}만 명이 다녀갔다.",
        "올해 축제는 지역 농산물을 활용한 체험 행사로 꾸며졌다.",
        "국립박물관은 다음 달까지 조선 시대 생활사 특별전을 연다.",
        "관람객들은 유물 설명이 쉽고 친절하다는 반응을 보였다.",
        "주최 측은 내년에도 행사를 이어갈 계획이라고 밝혔다.",
    ],
    "세계": [
        "유럽연합은 기후 대응 예산을 대폭 늘리는 방안에 합의했다.",
        "각국 정상들은 공동 성명을 통해 협력을 강화하기로 했다.",
        "현지 언론은 이번 합의가 시장에 긍정적인 신호가 될 것이라고 보도했다.",
        "국제기구는 올해 세계 경제 성장률 전망치를 {p}%로 낮췄다.",
        "외교부는 현지 교민의 안전을 확인하고 있다고 밝혔다.",
    ],
    "정치": [
        "국회는 본회의를 열어 민생 법안 {n}건을 처리했다.",
        "여야는 예산안 처리 시한을 앞두고 막판 협상을 이어갔다.",
        "대변인은 국민의 목소리에 귀 기울이겠다고 말했다.",
        "개정안은 공포 후 6개월이 지나 시행된다.",
        "위원회는 다음 주 공청회를 열어 의견을 듣기로 했다.",
    ],
}
leads = ["", "", "이날 ", "지난 {d}일 ", "{c}에서는 ", "올해 ", "최근 ", "{m}월 들어 ", "한편 ", "{c}시에 따르면 "]
def fill(s):
    lead = rng.choice(leads)
    s = lead + s
    return s.format(c=rng.choice(cities), n=rng.randint(2, 90), p=rng.choice(["2.5", "3.0", "3.25", "1.8"]),
                    d=rng.randint(1, 28), m=rng.randint(1, 12))

news = []
topic_names = list(topics)
for i in range(60):
    t = topic_names[i % len(topic_names)]
    press = rng.choice(presses)
    rep = rng.choice(reporters)
    c = rng.choice(cities)
    sents = [fill(s) for s in rng.sample(topics[t], 4)]
    body = f"({c}={press}) {rep} 기자 = " + " ".join(sents)
    if i % 3 == 0:
        body += f" 사진=자료사진"
    if i % 4 == 0:
        body += f" {rep} 기자 reporter{i}@hanbit-news.example.com"
    if i % 5 == 0:
        body += f" ⓒ {press} 무단 전재 및 재배포 금지"
    if i % 7 == 0:
        body += " #속보 #" + t
    if i == 11:
        body += " 제보는 카카오톡 또는 전화 010-2345-6789로 연락 바랍니다."
    if i == 23:
        body += " 문의처 담당자 이메일은 kim.minjun@example.org이다."
    if i == 37:
        body += " 행사 안내는 https://www.example.go.kr/notice 에서 확인할 수 있다."
    if i == 41:
        body += " 한편 &quot;현장 <b>점검</b>&quot;은 내일 이어진다."
    year = 2019 + (i % 3)
    date = f"{year}-{1 + i % 12:02d}-{1 + (i * 7) % 28:02d}"
    title = sents[0][:24]
    news.append({"id": f"n{i:03d}", "date": date, "title": title, "topic": t, "text": body})
lines = [json.dumps(r, ensure_ascii=False) for r in news]
# Planted malformed lines: a truncated record, a record without text, a wrong type.
lines.insert(15, '{"id": "n-trunc", "date": "2020-01-01", "text": "잘린 기사')
lines.insert(30, '{"id": "n-notext", "date": "2020-02-02", "title": "본문 없음"}')
lines.insert(45, '{"id": "n-type", "date": "2020-03-03", "text": 12345}')
w("news/news.jsonl", "\n".join(lines) + "\n")
# Exact and near duplicates of earlier articles, as wire copies are.
dup = dict(news[5]); dup["id"] = "n900"
near = dict(news[8]); near["id"] = "n901"; near["text"] = near["text"].replace("밝혔다.", "말했다.", 1)
with open(os.path.join(HERE, "news/news.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(dup, ensure_ascii=False) + "\n")
    f.write(json.dumps(near, ensure_ascii=False) + "\n")

# ---------------------------------------------------------------- reviews (colloquial, JSON arrays, NSMC-like)
pos = [
    "진짜 재밌어요 ㅋㅋㅋ 또 보고 싶다", "배우들 연기가 너무 좋았어요", "OST가 계속 생각나네요ㅠㅠ 감동",
    "올해 본 영화 중에 최고였다", "가족이랑 보기 딱 좋은 영화네요", "마지막 장면에서 울었어요 ㅠㅠ",
    "스토리가 탄탄하고 지루할 틈이 없음", "웃기고 따뜻하고 다 좋았음 ㅎㅎ", "감독님 다음 작품도 기대됩니다",
    "두 번 봤는데 두 번 다 좋았다", "연출이 세련되고 색감이 예뻐요", "이런 영화 더 많이 나왔으면 좋겠다",
]
neg = [
    "시간 아까웠다 ㅡㅡ", "스토리가 너무 뻔해서 지루했어요", "돈 주고 보기엔 좀 아깝네요",
    "중간에 나올 뻔했음ㅋㅋ 노잼", "배우는 좋은데 각본이 별로다", "기대했는데 실망이 크다ㅠ",
    "편집이 엉망이라 집중이 안 됨", "결말이 허무해요 왜 이렇게 끝나지", "광고에 속았다 재미없음",
    "너무 길고 늘어진다", "연기가 어색해서 몰입이 안 됐어요", "다시는 안 볼 듯ㅋ",
]
mid = ["그냥 그랬어요", "볼만은 한데 추천까진 모르겠음", "평범한 영화", "기대 안 하고 보면 괜찮음"]
subjects = ["스토리가", "배우 연기가", "영상미가", "음악이", "결말이", "연출이", "주인공이", "대사가", "액션이", "분위기가"]
pos_pred = ["정말 좋았어요", "최고였다", "훌륭하네요", "마음에 들었음", "재밌었다", "감동적이었어요", "깔끔하다", "기대 이상이었음"]
neg_pred = ["별로였어요", "지루했다", "아쉽네요", "엉망이었음", "재미없었다", "어색했어요", "뻔하다", "기대 이하였음"]
tails = ["", "", " ㅋㅋ", " ㅋㅋㅋ", "ㅠㅠ", "!!", "...", " ㅎㅎ", " ㅡㅡ", "~"]
def review(j, movie):
    r = rng.random()
    if r < 0.45:
        rating, preds, pool = rng.choice([9, 10, 10]), pos_pred, pos
    elif r < 0.9:
        rating, preds, pool = rng.choice([1, 1, 2, 3, 4]), neg_pred, neg
    else:
        rating, preds, pool = rng.choice([5, 6, 7]), pos_pred + neg_pred, mid
    a, b = rng.sample(subjects, 2)
    text = f"{a} {rng.choice(preds)}{rng.choice(tails)}"
    if rng.random() < 0.6:
        text += f" {b} {rng.choice(preds)}{rng.choice(tails)}"
    if rng.random() < 0.3:
        text = rng.choice(pool) + " " + text
    if rng.random() < 0.1:
        text = text.replace(" ", "  ", 1)
    return {"review": text, "date": f"{rng.randint(15, 21):02d}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}",
            "rating": str(rating), "author": f"user{rng.randint(1000, 9999)}****", "review_id": f"{movie}{j:04d}", "movie_id": str(movie)}
for movie in (20001, 20002, 20003):
    rows = [review(j, movie) for j in range(50)]
    if movie == 20002:
        rows[7]["review"] = "@movie_fan 님 말대로 진짜 재밌네요ㅋㅋ"
        rows[19]["review"] = "문의는 review.fan@example.com 으로 주세요 ㅎㅎ"
        rows[33]["review"] = "ᅲᅲ 너무 슬퍼요ᆢ 마지막에 울었음"
        rows[34]["review"] = "\u200b너무\u00a0좋아요\u200b 최고ㅋㅋ"
        rows[35]["review"] = "ＯＳＴ가　최고입니다！"
        rows[40]["review"] = "#강추 #인생영화"  # nothing left once hashtags go: noise.empty
    w(f"reviews/{movie}.json", json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
# A truncated array file, as a crawl cut off midway leaves it.
w("reviews/20004.json", '[\n  {"review": "이 파일은 중간에 잘렸다", "date": "20.01.01", "rating": "8", "author": "x****", "review_id": "200040001", "movie_id": "20004"},\n  {"review": "잘린\n')

# ---------------------------------------------------------------- intents (paraKQC-like TSV, no header, CRLF)
intent_sets = [
    (0, 0, ["내일 서울 날씨 어때?", "내일 서울 날씨 알려줘", "서울 내일 비 와?", "내일 서울에 우산 필요할까?", "내일 서울 기온이 몇 도야?"]),
    (0, 0, ["주말 부산 날씨 어때?", "이번 주말 부산에 비 오니?", "부산 주말 날씨 알려줄래?", "토요일 부산 날씨 좀 알려줘", "부산 이번 주말 맑아?"]),
    (0, 1, ["에어컨 온도 좀 낮춰줘", "에어컨 온도를 낮춰 줄래?", "방이 더운데 에어컨 세게 틀어줘", "에어컨 설정 온도 내려줘", "에어컨 좀 더 시원하게 해 줘"]),
    (0, 1, ["거실 불 꺼줘", "거실 조명 좀 꺼 줄래?", "거실 전등 끄기", "거실 불 좀 끌 수 있어?", "거실 조명 꺼"]),
    (1, 0, ["오늘 일정 뭐 있어?", "오늘 내 스케줄 알려줘", "오늘 약속 있나?", "오늘 해야 할 일 보여줘", "오늘 일정 좀 읽어줘"]),
    (1, 0, ["다음 주 회의 언제야?", "다음 주 회의 일정 알려줘", "다음 주에 회의 잡혀 있어?", "회의가 다음 주 언제지?", "다음 주 회의 시간 확인해줘"]),
    (1, 1, ["내일 아침 7시에 알람 맞춰줘", "내일 7시 알람 설정해 줄래?", "아침 일곱 시에 깨워줘", "알람 내일 7시로 맞춰", "7시 알람 하나 만들어줘"]),
    (1, 1, ["엄마한테 문자 보내줘", "엄마에게 메시지 보내 줄래?", "엄마한테 곧 간다고 문자해", "엄마 문자 보내기", "엄마에게 연락 좀 남겨줘"]),
    (2, 0, ["근처 맛집 추천해줘", "이 근처에 맛있는 식당 있어?", "주변 맛집 알려줄래?", "가까운 맛집 어디야?", "근처에서 밥 먹을 데 추천해"]),
    (2, 0, ["주말에 볼 만한 영화 있어?", "요즘 볼 만한 영화 추천해줘", "이번 주말 영화 뭐 보지?", "재밌는 영화 하나 골라줘", "최근 개봉 영화 추천 좀"]),
    (2, 1, ["노래 좀 틀어줘", "음악 재생해 줄래?", "신나는 노래 틀어", "아무 노래나 들려줘", "음악 좀 켜줘"]),
    (2, 1, ["볼륨 좀 줄여줘", "소리 작게 해 줄래?", "음량 낮춰", "소리 좀 줄여", "볼륨 내려줘"]),
]
rows = []
for topic, act, utts in intent_sets:
    for u in utts:
        rows.append(f"{topic}\t{act}\t{u}")
rows.append("1\t0")  # a row with too few columns (last, so intent blocks of 5 stay aligned)
w("intents/intents.tsv", "\r\n".join(rows) + "\r\n")

# ---------------------------------------------------------------- policy briefings (formal, CSV)
policy = [
    ("복지", "정부는 내년부터 기초연금 지급 대상을 확대한다. 소득 하위 70% 어르신은 매달 연금을 받는다. 신청은 주소지 행정복지센터에서 할 수 있다."),
    ("교육", "교육부는 모든 초등학교에 디지털 교과서를 단계적으로 도입한다. 교사 연수는 올해 하반기에 시작된다. 학부모 설명회도 함께 열린다."),
    ("환경", "환경부는 일회용 컵 보증금제를 전국으로 넓힌다. 컵을 반납하면 보증금을 돌려받는다. 참여 매장은 누리집에서 확인할 수 있다."),
    ("고용", "고용노동부는 청년 일자리 도약 장려금을 지원한다. 중소기업이 청년을 정규직으로 채용하면 인건비를 지원받는다. 지원 기간은 최대 1년이다."),
    ("교통", "국토교통부는 광역버스 노선을 새로 만든다. 출퇴근 시간 배차 간격은 10분 이내로 줄어든다. 새 노선은 다음 달 1일부터 운행된다."),
    ("보건", "질병관리청은 독감 예방접종을 무료로 지원한다. 대상은 어린이와 임신부, 65세 이상 어르신이다. 접종은 가까운 지정 의료기관에서 받을 수 있다."),
    ("주거", "국토교통부는 신혼부부 전세자금 대출 한도를 늘린다. 소득 기준도 함께 완화된다. 자세한 내용은 은행 창구에서 안내한다."),
    ("문화", "문화체육관광부는 통합문화이용권 지원금을 인상한다. 저소득층은 공연과 여행에 이용권을 쓸 수 있다. 잔액은 연말까지 사용해야 한다."),
    ("안전", "행정안전부는 여름철 물놀이 안전 수칙을 안내했다. 구명조끼를 반드시 착용해야 한다. 음주 후 물놀이는 절대 하지 말아야 한다."),
    ("농업", "농림축산식품부는 청년 농업인 정착 지원금을 지급한다. 영농 경력 3년 이하 청년이 대상이다. 지원금은 매달 나누어 지급된다."),
]
import csv, io
buf = io.StringIO()
cw = csv.writer(buf, lineterminator="\n")
cw.writerow(["분야", "날짜", "제목", "본문"])
for k, (field, body) in enumerate(policy * 2):
    date = f"202{k % 3}-0{1 + k % 9}-1{k % 9}"
    cw.writerow([field, date, f"{field} 정책 안내 {k + 1}", body if k < 10 else body.replace("다.", "다고 밝혔다.", 1)])
cw.writerow(["안전", "2021-05-05", "문의 안내", "담당 부서 연락처는 02-2100-3456이며 평일에 상담한다."])
w("policy/policy.csv", buf.getvalue())

# ---------------------------------------------------------------- labelled comments (hate speech TSV format)
# Mild, invented comments in the Korean hate speech dataset's format, so the default recipe
# trains a small toxicity model without ../shared. Labels: bias gender/others/none, hate
# hate/offensive/none.
clean = ["배우 연기가 정말 자연스럽네요", "오늘 경기 재밌게 봤습니다", "이 기사 덕분에 잘 알게 됐어요", "응원합니다 힘내세요",
         "다음 작품도 기대할게요", "좋은 소식이네요 축하드려요", "정리가 깔끔한 기사입니다", "노래가 너무 좋아요"]
offensive = ["진짜 멍청한 소리 하고 있네", "수준 낮은 기사 쓰지 마라", "저런 사람이 무슨 방송을 해", "머리는 장식으로 달고 다니냐",
             "한심하다 정말", "꼴도 보기 싫다 이제 그만 나와라"]
hateful = ["저런 인간들은 다 사라져야 한다", "저 동네 사람들은 다 쓰레기다", "저런 것들은 사람 취급하면 안 된다", "싹 다 쫓아내야 정신 차린다"]
gender = ["여자가 무슨 운전을 한다고", "남자가 울면 안 되지", "여자는 집에서 살림이나 해라", "남자가 그것도 못 하냐",
          "여자들은 원래 감정적이라서 안 돼", "역시 여자라서 숫자에 약하네"]
lines = ["comments\tcontain_gender_bias\tbias\thate"]
for k in range(160):
    r = k % 8
    if r < 4:
        t, g, b, h = rng.choice(clean), "False", "none", "none"
    elif r < 6:
        t, g, b, h = rng.choice(offensive), "False", "none", "offensive"
    elif r == 6:
        t, g, b, h = rng.choice(hateful), "False", "others", "hate"
    else:
        t, g, b, h = rng.choice(gender), "True", "gender", rng.choice(["offensive", "hate"])
    lines.append(f"{t} {rng.choice(['', 'ㅋㅋ', '...', '!!', 'ㅉㅉ'])}".strip() + f"\t{g}\t{b}\t{h}")
w("toxicity/labeled.tsv", "\n".join(lines) + "\n")

# ---------------------------------------------------------------- a source whose licence the gate refuses
w("restricted/restricted.jsonl", json.dumps({"id": "r1", "text": "이 문서는 비영리 조건으로만 배포된다."}, ensure_ascii=False) + "\n")
print("ok")
