#!/usr/bin/env python3
"""Code size of a wasm module by crate (and its largest functions), read from its name section.

usage: wasm_sizes.py MODULE.wasm [CRATES=30] [FUNCTIONS]

The module needs its names: the raw cargo output, or `GEO_WASM_NAMES=1 cargo xtask dist`
(docs/testing.md). Used to find the cuts of docs/adr/0014-site-size.md.
"""
import sys, re, collections
f=sys.argv[1]
b=open(f,'rb').read()
def leb(b,i):
    r=0;s=0
    while True:
        x=b[i];i+=1;r|=(x&0x7f)<<s;s+=7
        if x<0x80:return r,i
i=8; imports_funcs=0; code=None; names={}
while i<len(b):
    sid=b[i];i+=1
    n,i=leb(b,i); end=i+n
    if sid==2:
        cnt,j=leb(b,i)
        for _ in range(cnt):
            l,j=leb(b,j); j+=l
            l,j=leb(b,j); j+=l
            kind=b[j]; j+=1
            if kind==0: _,j=leb(b,j); imports_funcs+=1
            elif kind==1: j+=1; fl,j=leb(b,j); _,j=leb(b,j); 
            elif kind==2: fl,j=leb(b,j); _,j=leb(b,j); 
            elif kind==3: j+=2
    elif sid==10:
        cnt,j=leb(b,i); sizes=[]
        for _ in range(cnt):
            sz,j=leb(b,j); sizes.append(sz); j+=sz
        code=sizes
    elif sid==0:
        l,j=leb(b,i); nm=b[j:j+l].decode(); j+=l
        if nm=='name':
            while j<end:
                sub=b[j]; j+=1; sl,j=leb(b,j); se=j+sl
                if sub==1:
                    cnt,k=leb(b,j)
                    for _ in range(cnt):
                        idx,k=leb(b,k); l,k=leb(b,k); names[idx]=b[k:k+l].decode('utf8','replace'); k+=l
                j=se
    i=end
agg=collections.Counter()
top=[]
for n,sz in enumerate(code):
    name=names.get(n+imports_funcs,'?')
    m=re.findall(r'(?:^|[^A-Za-z0-9_])(\d+)([A-Za-z_][A-Za-z0-9_]*)', name)
    crate='?'
    if name.startswith('_ZN'):
        mm=re.match(r'_ZN(\d+)',name); L=int(mm.group(1)); crate=name[len(mm.group(0)):len(mm.group(0))+L]
        if crate.startswith('_$LT$'):
            mm2=re.search(r'\$LT\$([a-z_0-9]+)',name); crate='<'+(mm2.group(1) if mm2 else '?')
    elif '::' in name: crate=name.split('::')[0].lstrip('<')
    else: crate=name[:30]
    agg[crate]+=sz; top.append((sz,name))
tot=sum(code)
print('total code',tot)
for c,s in agg.most_common(int(sys.argv[2]) if len(sys.argv)>2 else 30): print(f'{s:9d} {100*s/tot:5.1f}% {c}')
if len(sys.argv)>3:
    for sz,n in sorted(top,reverse=True)[:int(sys.argv[3])]: print(sz,n[:150])
