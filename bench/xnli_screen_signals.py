"""Surface signals on the 128 judged XNLI-ko pairs (tests/fixtures/judgements/nli-hard-xnli-kept.tsv):
ROC AUC of each feature for "not ok" (garbled or mislabelled) vs ok. A candidate screen rule
for configs/nli-hard-xnli.toml is worth adding only with an AUC well above 0.5; none is
(so the recipe screens with none of them). The character LM is a trigram model (add-0.1) of native Korean text in
../shared: KLUE NLI and STS dev, Wikinews bodies, UD Korean-PUD sentences.
Run from the repository root: python3 bench/xnli_screen_signals.py
"""
import csv,collections,math,json,re,glob,os
S=os.environ.get('KCURATE_SHARED','../shared')+'/corpora'
rows=list(csv.DictReader(open(S+'/kornlu/KorNLI/xnli.dev.ko.tsv'),delimiter='\t',quoting=csv.QUOTE_NONE))
J=[l.rstrip('\n').split('\t') for l in open('tests/fixtures/judgements/nli-hard-xnli-kept.tsv') if not l.startswith('#')][1:]
lab={}
for s,i,j in J: lab[i]=(j!='ok')
def get(i): return rows[int(i.split('-')[1])-1]
def auc(scores):  # scores: list of (score, bad)
    pos=[s for s,b in scores if b]; neg=[s for s,b in scores if not b]
    c=0
    for p in pos:
        for n in neg: c+= 1 if p>n else 0.5 if p==n else 0
    return c/len(pos)/len(neg)
# native text for LM
native=[]
for x in json.load(open(S+'/klue/klue-nli-v1.1/klue-nli-v1.1_dev.json')):
    native+= [x['premise'],x['hypothesis']]
for x in json.load(open(S+'/klue/klue-sts-v1.1/klue-sts-v1.1_dev.json')):
    native+= [x['sentence1'],x['sentence2']]
import csv as c2, sys
c2.field_size_limit(10**9)
for r in c2.DictReader(open(glob.glob(S+'/wikinews/*.csv')[0])):
    native+= [l for l in r['내용'].split('\n') if l.strip()]
for l in open(glob.glob(S+'/ud-korean-pud/*.conllu')[0]):
    if l.startswith('# text ='): native.append(l[8:].strip())
print('native lines',len(native), sum(map(len,native)))
N=3
cnt=collections.Counter(); ctx=collections.Counter(); V=set()
for s in native:
    t='^'*(N-1)+s+'$'
    for k in range(N-1,len(t)):
        cnt[t[k-N+1:k+1]]+=1; ctx[t[k-N+1:k]]+=1; V.add(t[k])
def lp(s):
    t='^'*(N-1)+s+'$'; tot=0
    for k in range(N-1,len(t)):
        tot+=math.log((cnt[t[k-N+1:k+1]]+0.1)/(ctx[t[k-N+1:k]]+0.1*len(V)))
    return tot/(len(t)-N+1)
vocab=collections.Counter(w for s in native for w in s.split())
def tokrare(s):
    w=s.split(); return sum(1 for x in w if vocab[x]==0)/max(1,len(w))
F={
 'ratio':lambda p,h: len(h)/len(p),
 'inv_ratio':lambda p,h: len(p)/len(h),
 'plen':lambda p,h: len(p),
 'hlen':lambda p,h: len(h),
 'p_lm_neg':lambda p,h: -lp(p),
 'h_lm_neg':lambda p,h: -lp(h),
 'min_lm_neg':lambda p,h: max(-lp(p),-lp(h)),
 'p_rare':lambda p,h: tokrare(p),
 'h_rare':lambda p,h: tokrare(h),
 'overlap_neg':lambda p,h: -len(set(p)&set(h))/max(1,len(set(h))),
 'p_commas':lambda p,h: p.count(','),
 'latin':lambda p,h: len(re.findall('[A-Za-z]',p+h)),
}
for name,f in F.items():
    sc=[(f(get(i)['sentence1'],get(i)['sentence2']),b) for i,b in lab.items()]
    print(f"{name:12s} AUC {auc(sc):.3f}")
