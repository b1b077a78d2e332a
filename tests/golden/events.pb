L
Jdb7$3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b"ĞÊ„Ø*0.1.026.18.08Nh€ OM

ÑÊ„Øğ›)db7loop3*7:32read:R@´Ú™H€€PwXw`Úhp‰xŠ‚a"b\c
 TR

ÑÊ„ØíĞ\db7sda"sda1*8:02flush:FPúßXúß`òhp’x’‚jbd2/nvme0n1p2 OM
ÑÊ„Øáã¬db7vdb*254:162read:R@ıÁÙH€€PØqXØq`Ğhp«x­‚cafÃ© RP
ÑÊ„Ø–óşdb7loop3*7:32write:WS@œÊåH€ PŞWXŞW`ºh
p“!x“!‚postgres fd
ÑÊ„Ø½Òºdb7nvme0n1"	nvme0n1p2*259:02read:R@‘ôø(H€€PŠYXŠY`¦hp’x”‚jbd2/nvme0n1p2 SQ
ÑÊ„Øá‘ídb7vdb*254:162read:R@ûŠ‡H€P®‚X®‚`“
h
p“!x•!‚postgres ZX
ÑÊ„Ø¡¢db7vdb*254:162read:R@¶·­H€€PÚŠXÚŠ`ùhp’x”‚jbd2/nvme0n1p2 XV
ÑÊ„Ø©Èúdb7loop3*7:32read:R@¤èšH€ PÃ©XÃ©`İhp’x’‚jbd2/nvme0n1p2 ca
ÑÊ„Ø·Ñ²db7nvme0n1"	nvme0n1p1*259:02read:R@Ìœ¹%H€PÜpXÜp`ìhp·x¹‚kworker/u8:2 	ge
ÑÊ„Øøµ¿db7nvme0n1"	nvme0n1p2*259:02write:W@¤À‹H€€ P¯—X¯—`Úh	p·x¸‚kworker/u8:2 
SQ
ÑÊ„Øùâdb7sda"sda1*8:02write:WS@¤‰¢
H€ P©rX©r`Óhp«x¬‚cafÃ© LJ
ÑÊ„Ø§¡ìdb7loop3*7:32read:R@ßãH€€PÆoXÆo`ò	h
p©Fx«F‚fio US
ÑÊ„Ø¦¥db7sda"sda1*8:02read:R@’éáH€€PÇ£XÇ£`"hp‰xŠ‚a"b\c
 _]
ÑÊ„ØåÔ–db7nvme0n1"	nvme0n1p1*259:02read:R@œã-H€€PÓ•XÓ•`Ä
hp«x¬‚cafÃ© OM
ÑÊ„Øß¸db7sda"sda1*8:02read:R@ôùÏH€@PÈzXÈz`ƒhp©Fx«F‚fio jh
ÑÊ„Ø¼ídb7nvme0n1"	nvme0n1p2*259:02write:WS@íóªH€PÔlXÔl`Ûh	pšxš‚	badï¿½ï¿½Šbadÿş ^\
ÑÊ„Øø‰¿db7nvme0n1"	nvme0n1p2*259:02read:R@§•!H€@PëXë`h p«x­‚cafÃ© b`
ÑÊ„Ø—½db7nvme0n1"	nvme0n1p1*259:02read:R@—‚±(H€€PÎšXÎš`¬hp“!x•!‚postgres ^\
ÑÊ„Øğê±db7nvme0n1"	nvme0n1p1*259:02write:W@¥î·'H€€PçOXçO`Šhp«x¬‚cafÃ© `^
ÑÊ„Ø¯“	db7loop3*7:32write:W@Â®ôH€€P X hp’x’‚jbd2/nvme0n1p2šEIO hf
ÑÊ„Ø ¢¬	db7nvme0n1"	nvme0n1p1*259:02read:R@¾™à,H€€@Pï„Xï„`hp’x“‚jbd2/nvme0n1p2 ca
ÑÊ„Ø“ÜÆ	db7nvme0n1"	nvme0n1p1*259:02write:W@ÌüúH€€@P›™X›™`ùhp’!x”!‚postgres MK
ÑÊ„ØÅ’ê	db7vdb*254:162read:R@ñ‡H€€@P²ZX²Z`„hp©Fx©F‚fio [Y
ÑÊ„Øòº
db7loop3*7:32write:WS@º·¼-H€€P¦ÅX¦Å`šhp’x”‚jbd2/nvme0n1p2 db
ÑÊ„ØÇŞ
db7nvme0n1"	nvme0n1p1*259:02discard:D@äûÁ)H€Pè‘Xè‘`‰hp’!x“!‚postgres \Z
ÑÊ„Øş‡Àdb7nvme0n1"	nvme0n1p2*259:02read:R@…Ô¬H€ P„uX„u`Øh
p«x«‚cafÃ© fd
ÑÊ„ØŒÆ–db7nvme0n1"	nvme0n1p2*259:02read:R@¯àH€€Pª’Xª’`Ûhp·x·‚kworker/u8:2 TR
ÑÊ„ØÓ›‹db7vdb*254:162read:R@ç›H€€Pş’Xş’`£hp’!x“!‚postgres QO
ÑÊ„ØğÜºdb7vdb*254:162read:R@õ¤§H€€P¢nX¢n`ïhp‰x‰‚a"b\c
 \Z
ÑÊ„ØêÁçdb7nvme0n1"	nvme0n1p1*259:02read:R@› ĞH€PÜlXÜlh
p“!x•!‚postgres jh
ÑÊ„Ø¸··db7nvme0n1"	nvme0n1p1*259:02discard:D@Õ³ŸH€P½X½`îhp’x”‚jbd2/nvme0n1p2 RP
ÑÊ„ØĞ‚db7vdb*254:162read:R@ĞšŸH€P÷]X÷]hp·x¹‚kworker/u8:2  PN
ÑÊ„ØÏô¨db7vdb*254:162write:W@ã¯§H€€P°ïX°ï`ö	h	p©Fx©F‚fio !QO
ÑÊ„ØÌ ñdb7loop3*7:32read:R@ı«§H€Pã¸Xã¸`³hp‰xŠ‚a"b\c
 "ZX
ÑÊ„Ø²®“db7sda"sda1*8:02read:R@Åúœ+H€@Pù”Xù”`‰hp·x¹‚kworker/u8:2 #US
ÑÊ„Ø‰±–db7vdb*254:162read:R@ß»ãH€P±SX±S`ähp·x·‚kworker/u8:2 $][
ÑÊ„Øäï×db7nvme0n1"	nvme0n1p1*259:02read:R@í¡É)H€€P½oX½o`éhp«x¬‚cafÃ© %US
ÑÊ„ØÌŒ®db7vdb*254:162read:R@€ÀÏH€€PñUXñUhp’x’‚jbd2/nvme0n1p2 &OM
ÑÊ„ØÖ£—db7loop3*7:32write:WS@»†ºH€ P¥iX¥i`Ÿhp«x¬‚cafÃ© 'XV
ÑÊ„Ø¨”Ädb7sda"sda1*8:02write:W@ïÔ°H€Pé‡Xé‡hp·x¸‚kworker/u8:2 (TR
ÑÊ„ØÎŠÿdb7loop3*7:32read:R@ÔÇÄH€@PjXj`¹hp·x·‚kworker/u8:2 )[Y
ÑÊ„Ø´°”db7loop3*7:32read:R@¦˜è+H€P­™X­™`Åhpšxš‚	badï¿½ï¿½Šbadÿş *db
ÑÊ„ØĞ“¡db7nvme0n1"	nvme0n1p2*259:02write:W@“§ë+H€ PækXæk`òhp·x¹‚kworker/u8:2 +\Z
ÑÊ„ØÓÍ³db7nvme0n1"	nvme0n1p2*259:02read:R@ÀàÁ H€€PŸ–XŸ–hp«x¬‚cafÃ© ,RP
ÑÊ„Ø¯Êdb7nvme0n1"	nvme0n1p1*259:02flush:FP¸nX¸n`h p©Fx©F‚fio -RP
ÑÊ„ØÇ¢¸db7vdb*254:162read:R@öÇˆ!H€PÓ’XÓ’`‹hp‰x‹‚a"b\c
 .a_
ÑÊ„Ø¾úúdb7nvme0n1"	nvme0n1p2*259:02write:W@¥ËïH€PÍ£XÍ£`hp‰xŠ‚a"b\c
 /RP
ÑÊ„Ø¥÷ïdb7vdb*254:162write:W@¾şğH€PódXód`¦hp’!x“!‚postgres 0ge
ÑÊ„Ø™ßğdb7nvme0n1"	nvme0n1p1*259:02write:WS@åºöH€P¬„X¬„`ûhp·x¹‚kworker/u8:2 1`^
ÑÊ„Ø±ø™db7nvme0n1"	nvme0n1p1*259:02write:W@Ëÿ“+H€PïXï`©
hp“!x“!‚postgres 2SQ
ÑÊ„Øíö¸db7vdb*254:162read:R@«ÉŒH€€P¡ÀX¡À`„hp‰x‹‚a"b\c
 3RP
ÑÊ„ØİÛÇdb7sda"sda1*8:02read:R@„çœ#H€€P¯aX¯a`’
hp«x¬‚cafÃ© 4MK
ÑÊ„ØÂö“db7vdb*254:162write:W@Á®€/H€@PÛUXÛU`Èhp©Fx«F‚fio 5YW
ÑÊ„Ø‡åÔdb7loop3*7:32write:W@å±ë$H€P¢‹X¢‹h pšxš‚	badï¿½ï¿½Šbadÿş 6\Z
ÑÊ„ØÒ…ıdb7vdb*254:162write:WS@ùô®+H€€PÖXÖ`Ûhp’x”‚jbd2/nvme0n1p2 7NL
ÑÊ„Ø„™ÿdb7vdb*254:162read:R@«²‡H€P¦SX¦S`—h	p«x­‚cafÃ© 8[Y
ÑÊ„Ø˜Ş¹db7vdb*254:162read:R@‡†ÚH€€PÖiXÖi`´hpšxœ‚	badï¿½ï¿½Šbadÿş 9ec
ÑÊ„ØÓà¾db7nvme0n1"	nvme0n1p2*259:02write:W@Ô£H€€P’aX’a`ähp·x·‚kworker/u8:2 :`^
ÑÊ„ØÇ§¿db7nvme0n1"	nvme0n1p1*259:02read:R@ùåƒ$H€ Pÿ¤Xÿ¤`ü	hp‰x‰‚a"b\c
 ;hf
ÑÊ„Øµ¶Údb7nvme0n1"	nvme0n1p1*259:02read:R@Ô“€H€€PÄ°XÄ°`®hp’x”‚jbd2/nvme0n1p2 <QO
ÑÊ„Øğå˜db7vdb*254:162write:W@ÓêVH€€@PÍ€XÍ€`Ìhp«x¬‚cafÃ© =RP
ÑÊ„ØæßÁdb7sda"sda1*8:02read:R@†ìÉ&H€€PµšXµš`³hp©Fx©F‚fio >hf
ÑÊ„Ø®äödb7nvme0n1"	nvme0n1p2*259:02read:R@¨Ø°H€€P˜ÍX˜Íhpšx›‚	badï¿½ï¿½Šbadÿş ?RP
ÑÊ„Ø÷„ÿdb7loop3*7:32write:W@şÛ×H€@På—Xå—`Ôh
p‰x‰‚a"b\c
 @YW
ÑÊ„ØÎ¥³db7nvme0n1"	nvme0n1p2*259:02read:R@éƒ0H€P’[X’[`«hp©Fx©F‚fio ATR
ÑÊ„ØñÇÓdb7loop3*7:32read:R@›œH€€PÉ•XÉ•hp·x¹‚kworker/u8:2 BUS
ÑÊ„ØÀÂÙdb7vdb*254:162write:WS@£¹üH€P÷£X÷£`Éhp“!x•!‚postgres Cfd
ÑÊ„ØÎ«ûdb7nvme0n1"	nvme0n1p2*259:02read:R@£Š›H€€Pı¯Xı¯`°hp·x·‚kworker/u8:2 Dca
ÑÊ„Øœ£½db7nvme0n1"	nvme0n1p2*259:02flush:FP¥ğX¥ğ`Áhpšxš‚	badï¿½ï¿½Šbadÿş EUS
ÑÊ„ØŠÁœdb7nvme0n1"	nvme0n1p1*259:02flush:FPØ†XØ†`çhp©Fx«F‚fio F[Y
ÑÊ„ØŞÒªdb7vdb*254:162write:WS@õ¬Ï-H€@PáwXáw`h	pšxœ‚	badï¿½ï¿½Šbadÿş Gb`
ÑÊ„ØÕÉ²db7nvme0n1"	nvme0n1p1*259:02write:WS@±êH€€PòhXòh`›hp’!x”!‚postgres HPN
ÑÊ„Øû®õdb7loop3*7:32read:R@ÛøïH€€PëtXët`«hp‰x‹‚a"b\c
 ITR
ÑÊ„Ø²Õ™db7vdb*254:162write:W@˜´İ$H€PİXİ`íhp’!x“!‚postgres JRP
ÑÊ„Øÿ›‘db7vdb*254:162read:R@­ú H€€P—{X—{`Ëhp“!x“!‚postgres KSQ
ÑÊ„ØÉ…Èdb7sda"sda1*8:02read:R@ËöàH€P»—X»—`¸hp«x«‚cafÃ© L_]
ÑÊ„ØÛ¿db7nvme0n1"	nvme0n1p1*259:02write:WS@Ìñş H€€P¬UX¬Uhp“!x“!‚postgres MVT
ÑÊ„Ø×ÑÙdb7sda"sda1*8:02read:R@å¨ÎH€Pæ‹Xæ‹`‰hp’!x”!‚postgres NLJ
ÑÊ„Øîš“ db7vdb*254:162read:R@÷ãH€€P‹ÖX‹Öh p©FxªF‚fio ORP
ÑÊ„Ø…ĞÍ db7loop3*7:32write:W@ŠÄH€€PğUXğU`¢hp“!x”!‚postgres PXV
ÑÊ„ØĞ§!db7vdb*254:162write:W@ğÂì
H€PìrXìr`İhp’x’‚jbd2/nvme0n1p2 QKI
ÑÊ„Øù¿ª!db7loop3*7:32flush:FP†¨X†¨`³
hp“!x•!‚postgres RZX
ÑÊ„Ø…¾"db7vdb*254:162read:R@Ÿ¬H€€ P¹”X¹”`•hp’x“‚jbd2/nvme0n1p2 SPN
ÑÊ„ØİÈ¸"db7sda"sda1*8:02read:R@Ù¨»&H€€Pş`Xş``äh	p©Fx©F‚fio T][
ÑÊ„ØÏ¤Ï"db7loop3*7:32write:W@şÖóH€€PìƒXìƒ`hpšx›‚	badï¿½ï¿½Šbadÿş U[Y
ÑÊ„Ø¯’#db7loop3*7:32read:R@Á‰Œ/H€ PòXò`¨hpšx›‚	badï¿½ï¿½Šbadÿş Vge
ÑÊ„ØŸÃÈ#db7nvme0n1"	nvme0n1p2*259:02write:WS@×­H€P²ÃX²Ã`şhp·x·‚kworker/u8:2 WTR
ÑÊ„Ø¡Ûğ#db7loop3*7:32read:R@‡ÅÇ*H€PóUXóU`ühp·x·‚kworker/u8:2 Xec
ÑÊ„ØÈÿõ#db7nvme0n1"	nvme0n1p1*259:02read:R@¾Šã H€€PúèXúèhp’x’‚jbd2/nvme0n1p2 Yge
ÑÊ„Øî™”$db7nvme0n1"	nvme0n1p2*259:02read:R@”àœH€PX`îhp’x’‚jbd2/nvme0n1p2 ZOM
ÑÊ„Øğìä$db7loop3*7:32read:R@øµŒH€P±€X±€hp’!x“!‚postgres [QO
ÑÊ„Øğ–—%db7vdb*254:162read:R@˜äñ+H€€PŠXŠ`°hp«x«‚cafÃ© \MK
ÑÊ„Ø˜î¼%db7loop3*7:32read:R@©ŞíH€€PÉµXÉµhp«x­‚cafÃ© ]a_
ÑÊ„ØÇ™&db7sda"sda1*8:02write:W@Œã³H€€Pğ¨Xğ¨`éhpšx›‚	badï¿½ï¿½Šbadÿş ^b`
ÑÊ„ØÊÂ„'db7nvme0n1"	nvme0n1p1*259:02discard:D@ÈÙ¼)H€€P¡eX¡e`¬hp‰xŠ‚a"b\c
 _ge
ÑÊ„ØŸ»¥'db7nvme0n1"	nvme0n1p2*259:02write:WS@ô‚úH€PÕbXÕb`¢
hp’x’‚jbd2/nvme0n1p2 `SQ
ÑÊ„Ø€·Ë'db7vdb*254:162read:R@¡ÀöH€@P¦X¦`¨hp“!x“!‚postgres aNL
ÑÊ„Øå£ó'db7vdb*254:162read:R@ğõßH€PöOXöOh	p’!x’!‚postgres b_]
ÑÊ„Ø¬îŠ(db7loop3*7:32discard:D@ÇßøH€€@PÍğXÍğ`¢hpšxš‚	badï¿½ï¿½Šbadÿş cfd
ÑÊ„ØËº(db7nvme0n1"	nvme0n1p2*259:02read:R@ÔÄH€€@P—¨X—¨`Ùh	p·x¸‚kworker/u8:2 dRP
ÑÊ„Øı‘ó(db7vdb*254:162read:R@ğ¬áH€€PšwXšw`‰hp’!x“!‚postgres e\Z
ÑÊ„Øü)db7nvme0n1"	nvme0n1p1*259:02read:R@×åğH€ P‚_X‚_`éhp«x¬‚cafÃ© fNL
ÑÊ„ØÄğŸ)db7loop3*7:32write:W@äˆ¼H€@PVXV`Íhp«x«‚cafÃ© ga_
ÑÊ„Ø®®ç)db7nvme0n1"	nvme0n1p2*259:02write:W@îô‹H€€PËXË`ähp“!x“!‚postgres hUS
ÑÊ„Ø’Ôè)db7loop3*7:32write:WS@¥å½(H€PØ}XØ}`hp·x¸‚kworker/u8:2 ihf
ÑÊ„ØÏğî)db7nvme0n1"	nvme0n1p1*259:02read:R@Íƒ»H€€P§„X§„hpšxš‚	badï¿½ï¿½Šbadÿş jWU
ÑÊ„Ø±¢‘*db7sda"sda1*8:02read:R@—¹×H€€PÖ„XÖ„`¤hp’!x’!‚postgres kKI
ÑÊ„Øˆî*db7loop3*7:32flush:FP×‹X×‹`ähp’!x’!‚postgres lLJ
ÑÊ„Ø‚ò¬+db7loop3*7:32write:W@ÛßÜH€Pà~Xà~`®hp©Fx©F‚fio ma_
ÑÊ„ØÕìÔ+db7nvme0n1"	nvme0n1p2*259:02read:R@ €H€P°€X°€`–hp’!x’!‚postgres nki
ÑÊ„Ø² ò+db7loop3*7:32write:W@‹ËîH€€P·ƒX·ƒ`hpšx›‚	badï¿½ï¿½Šbadÿşnš	ETIMEDOUT oSQ
ÑÊ„Ø¦éø+db7vdb*254:162read:R@ªƒêH€€P‰˜X‰˜`Çh p‰x‰‚a"b\c
 pki
ÑÊ„Ø½ŸÅ,db7nvme0n1"	nvme0n1p1*259:02write:W@®š H€@P¸šX¸š`¬hpšx›‚	badï¿½ï¿½Šbadÿş qNL
ÑÊ„Ø¯¹î,db7sda"sda1*8:02read:R@‹¹H€PœNXœN`mhp©Fx«F‚fio rec
ÑÊ„Ø ıœ-db7nvme0n1"	nvme0n1p1*259:02read:R@Ê¼ñH€@PÑÓXÑÓ`æhp·x·‚kworker/u8:2 sOM
ÑÊ„Ø ¥-db7sda"sda1*8:02read:R@ÜÓËH€€P…øX…øhp©Fx«F‚fio tWU
ÑÊ„Ø¡ÛÚ-db7loop3*7:32read:R@Ÿ§¸-H€€P[X[`Î
hp’x’‚jbd2/nvme0n1p2 uRP
ÑÊ„ØÑ´Ó.db7loop3*7:32read:R@‘¥öH€Pß—Xß—`ºhp’!x’!‚postgres vUS
ÑÊ„Øİù.db7sda"sda1*8:02read:R@ï÷Ä*H€PñúXñú`¶hp‰xŠ‚a"b\c
 wUS
ÑÊ„Ø†¥¯/db7sda"sda1*8:02read:R@…‰ïH€Pï‘Xï‘`¿hp‰x‹‚a"b\c
 xOM
ÑÊ„Ø¹‡ß/db7vdb*254:162read:R@šƒ·H€€PóoXóo`ßhp«x«‚cafÃ© ya_
ÑÊ„ØÌêş/db7nvme0n1"	nvme0n1p1*259:02read:R@òÄÜH€€PştXşthp·x·‚kworker/u8:2 zZX
ÑÊ„ØèÉö0db7vdb*254:162read:R@îŒ‰H€€P•tX•t`hhpšxš‚	badï¿½ï¿½Šbadÿş {PN
ÑÊ„ØêßÈ1db7loop3*7:32read:R@ÏÊ‹H€€@P¢vX¢v`çhp‰x‹‚a"b\c
 |QO
ÑÊ„Ø£œÓ1db7vdb*254:162read:R@ä½¹
H€PæVXæV`‘hp’!x’!‚postgres }PN
ÑÊ„Ø‰ºÖ1db7loop3*7:32read:R@ùçÁH€@PànXàn`Šhp’!x’!‚postgres ~jh
ÑÊ„Ø¡‘„2db7vdb*254:162read:R@êÓH€€@PäaXäa`ãhpšxš‚	badï¿½ï¿½Šbadÿşnš	ETIMEDOUT RP
ÑÊ„Ø·È2db7loop3*7:32read:R@üªŸH€€@PóuXóu`–hp“!x“!‚postgres €WU
ÑÊ„ØÅÓÇ2db7sda"sda1*8:02write:W@¶¾…H€€P­vX­v`ühp’!x”!‚postgres _]
ÑÊ„ØüÒ¥3db7sda"sda1*8:02read:R@ûæÇ/H€ PùŸXùŸ`fhpšxš‚	badï¿½ï¿½Šbadÿş ‚SQ
ÑÊ„Øë°“4db7sda"sda1*8:02read:R@­§Ó$H€€PÜeXÜehp“!x“!‚postgres ƒTR
ÑÊ„ØÌöÂ4db7sda"sda1*8:02flush:FPÔÖXÔÖ`íhp·x¸‚kworker/u8:2 „ZX
ÑÊ„Ø—šğ4db7sda"sda1*8:02write:WS@°Ìş.H€ PómXómhp’x’‚jbd2/nvme0n1p2 …_]
ÑÊ„Ø×Ò¾5db7nvme0n1"	nvme0n1p2*259:02read:R@ª©§.H€P¡qX¡q`âhp‰x‰‚a"b\c
 †RP
ÑÊ„ØøÜ5db7loop3*7:32read:R@ĞÙH€€PëaXëa`”hp’!x’!‚postgres ‡NL
ÑÊ„Øê™½6db7vdb*254:162read:R@§·ı
H€€PİWXİW`©hp©FxªF‚fio ˆXV
ÑÊ„ØËÓ6db7vdb*254:162read:R@äÉ‚H€@P«‰X«‰`âhp·x¹‚kworker/u8:2 ‰OM
ÑÊ„ØÏâ6db7vdb*254:162read:R@­ÃÎ'H€@P¦}X¦}`°
hp«x«‚cafÃ© ŠNL
ÑÊ„Ø¡æ¨7db7vdb*254:162read:R@óÇÎ/H€€PÍ{XÍ{`¼hp©Fx©F‚fio ‹JH
ÑÊ„ØÙÜ”8db7loop3*7:32flush:FP†PX†P`³hp“!x•!‚postgres Œqo
ÑÊ„Ø‹á°8db7nvme0n1"	nvme0n1p2*259:02read:R@…Ó	H€Pì“Xì“`©hp“!x•!‚postgresnš	ETIMEDOUT fd
ÑÊ„ØâÅ9db7nvme0n1"	nvme0n1p1*259:02read:R@§çÌH€@P†×X†×`›h p·x·‚kworker/u8:2 _]
ÑÊ„Øš¬Ô9db7nvme0n1"	nvme0n1p2*259:02write:W@©î*H€€P ‹X ‹`¥hp©FxªF‚fio ZX
ÑÊ„Øòı†:db7loop3*7:32read:R@ŸµòH€€P°X°`¸hp’x”‚jbd2/nvme0n1p2 XV
ÑÊ„Ø‚„Ù:db7loop3*7:32read:R@§Š¨ H€€P­ÅX­Å`»hp·x¸‚kworker/u8:2 ‘RP
ÑÊ„Ø©‘à:db7sda"sda1*8:02read:R@¯Š¬-H€€PèâXèâ`Php©FxªF‚fio ’NL
ÑÊ„Øï¨æ:db7loop3*7:32write:W@¦áºH€€P„uX„u`´hp©Fx«F‚fio “ZX
ÑÊ„Øì¥Í;db7loop3*7:32read:R@ˆ€H€@P‰]X‰]`¹hpšxš‚	badï¿½ï¿½Šbadÿş ”ki
ÑÊ„Ø¼Ú;db7nvme0n1"	nvme0n1p1*259:02read:R@ùÆ‹*H€ PÎÁXÎÁ`hpšx›‚	badï¿½ï¿½Šbadÿş •RP
ÑÊ„Ø·‘à;db7vdb*254:162write:WS@ÎÅH€€Pº¶Xº¶`Ÿ
h	p©Fx«F‚fio –!
ÑÊ„Ø·‘à;[¯˜úAò?Ü –8Æ
TR
ÑÊ„Øú×ã;db7sda"sda1*8:02write:WS@—½²(H€P®X®`¬hp©Fx©F‚fio —a_
ÑÊ„Ø×ƒ×<db7nvme0n1"	nvme0n1p1*259:02read:R@Ø×ğ"H€PÿÕXÿÕ`öhp‰xŠ‚a"b\c
 ˜US
ÑÊ„Øà¶=db7sda"sda1*8:02read:R@¤Ü‚)H€€P„’X„’`ßhp«x¬‚cafÃ© ™][
ÑÊ„ØÏ«Ì=db7nvme0n1"	nvme0n1p1*259:02read:R@˜Àó)H€P|X|`›hp«x­‚cafÃ© šSQ
ÑÊ„Ø¹—ò=db7loop3*7:32read:R@¦…õH€€@Pˆ…Xˆ…`í	hp‰xŠ‚a"b\c
 ›hf
ÑÊ„ØéÊ>db7nvme0n1"	nvme0n1p1*259:02read:R@®¦	H€P·’X·’`Ùhp’x“‚jbd2/nvme0n1p2 œ[Y
ÑÊ„Øş¾¬>db7loop3*7:32write:W@Ó«¼$H€€P¾ËX¾Ë`¹hp’x”‚jbd2/nvme0n1p2 QO
ÑÊ„ØÇĞÛ>db7loop3*7:32read:R@î îH€ P¢fX¢f`hp’!x“!‚postgres ca
ÑÊ„Ø„Š•?db7nvme0n1"	nvme0n1p1*259:02write:W@»Êö)H€€PÓŸXÓŸ`³hp‰x‹‚a"b\c
 Ÿig
ÑÊ„Ø•ší?db7nvme0n1"	nvme0n1p1*259:02read:R@í°«H€€PôXô`ºhp’x”‚jbd2/nvme0n1p2  NL
ÑÊ„ØÀÍ«@db7vdb*254:162write:W@ãëÔH€€PÁ½XÁ½hp©FxªF‚fio ¡ca
ÑÊ„Ø«È@db7nvme0n1"	nvme0n1p2*259:02write:W@ÆùÑ$H€P‚ëX‚ë`²hp“!x”!‚postgres ¢YW
ÑÊ„Ø—¼´Adb7loop3*7:32read:R@ÌÇH€€PªƒXªƒ`ªhp’x’‚jbd2/nvme0n1p2 £b`
ÑÊ„ØÜÍ€Bdb7nvme0n1"	nvme0n1p1*259:02write:W@ìÒñ&H€ PÑŒXÑŒ`åhp‰x‰‚a"b\c
 ¤RP
ÑÊ„ØÈõ±Bdb7loop3*7:32read:R@šîH€€P‚uX‚u`Œ
hp’!x“!‚postgres ¥\Z
ÑÊ„ØúäCdb7loop3*7:32write:W@ÙŒ¯H€€PŸnXŸn`¦h	pšxš‚	badï¿½ï¿½Šbadÿş ¦mk
ÑÊ„ØùıCdb7nvme0n1"	nvme0n1p1*259:02discard:D@ÔÊ–-H€€@PšZXšZ`øhpšxœ‚	badï¿½ï¿½Šbadÿş §VT
ÑÊ„Øê«Ddb7vdb*254:162read:R@Ç¸¹-H€€PòRXòR`whp·x¹‚kworker/u8:2 ¨ki
ÑÊ„Øõ¼»Ddb7nvme0n1"	nvme0n1p2*259:02write:WS@¼‰ºH€€Pı‰Xı‰`è	hp’x”‚jbd2/nvme0n1p2 ©RP
ÑÊ„ØáçÛDdb7vdb*254:162read:R@ã‰Ï*H€€ PÔÕXÔÕ`øhp«x«‚cafÃ© ªca
ÑÊ„ØĞÛéDdb7nvme0n1"	nvme0n1p2*259:02discard:D@”ú¯
H€€P‹OX‹O`´hp‰xŠ‚a"b\c
 «^\
ÑÊ„Ø€Ğ÷Ddb7nvme0n1"	nvme0n1p1*259:02read:R@¼ÙÆH€€P–‹X–‹`Õh	p©FxªF‚fio ¬ec
ÑÊ„ØÍÎEdb7nvme0n1"	nvme0n1p2*259:02read:R@¢ïôH€€PâpXâp`Á
hp·x¸‚kworker/u8:2 ­ig
ÑÊ„Ø‘ÒÛEdb7nvme0n1"	nvme0n1p2*259:02read:R@š¼H€PìnXìn`ƒh pšxš‚	badï¿½ï¿½Šbadÿş ®b`
ÑÊ„ØµÀ€Fdb7nvme0n1"	nvme0n1p1*259:02write:W@ÀÄÌH€@PÀ´XÀ´`õ
hp‰x‹‚a"b\c
 ¯US
ÑÊ„Øãÿ–Fdb7nvme0n1"	nvme0n1p2*259:02flush:FP¼°X¼°hp«x«‚cafÃ© °db
ÑÊ„ØÀ¢õFdb7nvme0n1"	nvme0n1p2*259:02write:WS@«¿˜H€€PéÕXéÕ`ƒhp‰x‰‚a"b\c
 ±RP
ÑÊ„ØêìèGdb7sda"sda1*8:02read:R@ğ³ßH€P¸TX¸Thp“!x•!‚postgres ²][
ÑÊ„Ø‘ÊÁHdb7nvme0n1"	nvme0n1p2*259:02read:R@ÙÊğH€€P¶X¶hp«x¬‚cafÃ© ³\Z
ÑÊ„Ø‚ğ£Idb7vdb*254:162write:W@×ş¾H€€PüXühpšx›‚	badï¿½ï¿½Šbadÿş ´fd
ÑÊ„Øı—ÁIdb7nvme0n1"	nvme0n1p1*259:02read:R@“Ï.H€@Pë˜Xë˜`Ñh
p·x·‚kworker/u8:2 µXV
ÑÊ„Øÿ°œJdb7loop3*7:32write:W@×¡÷	H€€PX`@hp·x¸‚kworker/u8:2 ¶`^
ÑÊ„Ø«†¦Jdb7nvme0n1"	nvme0n1p2*259:02read:R@€Ş‰$H€€PÊqXÊq`µhp‰x‹‚a"b\c
 ·[Y
ÑÊ„Ø¦õÿJdb7sda"sda1*8:02read:R@Ü¸aH€€@PÄ’XÄ’`Âhp·x¸‚kworker/u8:2 ¸\Z
ÑÊ„Ø•”ßKdb7sda"sda1*8:02read:R@ªŒá(H€ PÄãXÄã`Xh p’x“‚jbd2/nvme0n1p2 ¹NL
ÑÊ„ØôĞ–Ldb7vdb*254:162read:R@òÇ©H€€PƒXXƒX`¤hp©Fx©F‚fio ºXV
ÑÊ„ØÄ“îLdb7nvme0n1"	nvme0n1p2*259:02read:R@®†øH€PøuXøuhp©Fx«F‚fio »b`
ÑÊ„Ø¡ğ¡Mdb7nvme0n1"	nvme0n1p2*259:02read:R@–ä¼H€€P©úX©ú`éhp‰x‰‚a"b\c
 ¼ec
ÑÊ„Øø£Ndb7nvme0n1"	nvme0n1p2*259:02write:WS@Ëˆ³H€€PóŠXóŠ`Ähp“!x”!‚postgres ½_]
ÑÊ„Øæ»İNdb7nvme0n1"	nvme0n1p1*259:02write:WS@áô§H€Pñ}Xñ}`ıh	p«x­‚cafÃ© ¾RP
ÑÊ„Øƒ®ÖOdb7vdb*254:162read:R@òÚšH€ PÀQXÀQ`Ÿhp’!x’!‚postgres ¿^\
ÑÊ„Ø‹Ú‹Pdb7nvme0n1"	nvme0n1p2*259:02read:R@ ™Ë H€€P¢”X¢”`õ	hp©FxªF‚fio ÀTR
ÑÊ„Ø¾ÅPdb7vdb*254:162flush:FPªpXªp`¨hpšxœ‚	badï¿½ï¿½Šbadÿş Áec
ÑÊ„ØÖç’Qdb7nvme0n1"	nvme0n1p1*259:02read:R@·½ô H€€P|X|`¥hp·x¹‚kworker/u8:2 Âhf
ÑÊ„Ø»¡´Qdb7nvme0n1"	nvme0n1p2*259:02read:R@¸åîH€P‚¯X‚¯`
hp’x“‚jbd2/nvme0n1p2 Ãmk
ÑÊ„ØÅ›ÿQdb7nvme0n1"	nvme0n1p1*259:02write:W@µ“Ø*H€€ P—X—`¹hpšxœ‚	badï¿½ï¿½Šbadÿş Ä^\
ÑÊ„Ø¾øÃRdb7nvme0n1"	nvme0n1p2*259:02write:W@…‚ƒ
H€€Pÿ‹Xÿ‹hp«x­‚cafÃ© Åmk
ÑÊ„Ø³ƒSdb7nvme0n1"	nvme0n1p2*259:02write:W@ù„êH€€PâÃXâÃ`›h pšxœ‚	badï¿½ï¿½Šbadÿş Æb`
ÑÊ„ØÏÎ‚Tdb7sda"sda1*8:02write:W@ØÁH€€PáXá`èhpšxœ‚	badï¿½ï¿½Šbadÿş Çge
ÑÊ„ØĞÇœTdb7nvme0n1"	nvme0n1p2*259:02read:R@òÚ,H€Pİ…Xİ…hpšx›‚	badï¿½ï¿½Šbadÿş Èb`
ÑÊ„ØäŠïTdb7nvme0n1"	nvme0n1p2*259:02read:R@º¿–H€PØ˜XØ˜`è	hp’!x“!‚postgres ÉVT
ÑÊ„Ø¹ÖÂUdb7loop3*7:32read:R@Ó¼½H€€PåtXåt`­hp·x¸‚kworker/u8:2 Ê][
ÑÊ„Ø„×®Vdb7nvme0n1"	nvme0n1p1*259:02read:R@ÅÆ£H€@P™X™`¼hp©Fx«F‚fio ËQO
ÑÊ„Øˆ„Wdb7loop3*7:32read:R@¿‘Ó+H€ P½`X½``•hp’!x’!‚postgres Ìig
ÑÊ„ØÑ…‡Wdb7nvme0n1"	nvme0n1p1*259:02read:R@ÈëH€€ PóšXóš`â	hp’x“‚jbd2/nvme0n1p2 Íb`
ÑÊ„Ø‚¸üWdb7nvme0n1"	nvme0n1p1*259:02read:R@ëŒ¦H€PËˆXËˆ`¢hp’!x’!‚postgres ÎTR
ÑÊ„Øì°°Xdb7vdb*254:162write:W@»Ø†H€€PíYXíY`È	hp’!x“!‚postgres ÏZX
ÑÊ„Ø’æ¦Ydb7loop3*7:32read:R@‚‚“/H€€PŠ“XŠ“`²hp’x“‚jbd2/nvme0n1p2 ĞOM
ÑÊ„ØŠá§Ydb7vdb*254:162read:R@¢È«%H€PØXØ`²hp©FxªF‚fio ÑUS
ÑÊ„ØœåYdb7sda"sda1*8:02read:R@¸ˆ¸+H€PÙwXÙw`Şhp“!x“!‚postgres Ò[Y
ÑÊ„ØÀ¯òYdb7vdb*254:162read:R@¶Ïé(H€€P±‡X±‡`±hp’x“‚jbd2/nvme0n1p2 Óge
ÑÊ„Ø…üşYdb7nvme0n1"	nvme0n1p1*259:02read:R@ÓöÄH€€P¾¸X¾¸`¤hp·x¹‚kworker/u8:2 Ô[Y
ÑÊ„Ø×òâZdb7nvme0n1"	nvme0n1p1*259:02flush:FP¶ˆX¶ˆ`®
hp’!x’!‚postgres ÕUS
ÑÊ„Ø³·¾[db7sda"sda1*8:02read:R@ÃÉİ(H€€ PÚdXÚd`£
hp‰x‰‚a"b\c
 ÖKI
ÑÊ„Ø’ß«\db7sda"sda1*8:02flush:FPŒ›XŒ›`›hp©FxªF‚fio ×VT
ÑÊ„Øììµ\db7vdb*254:162write:WS@ÁÇâH€PœÂXœÂ`âhp“!x”!‚postgres ØRP
ÑÊ„Ø×çæ\db7loop3*7:32read:R@œ•†+H€€PÿxXÿx`
hp’!x“!‚postgres ÙWU
ÑÊ„ØİƒÉ]db7vdb*254:162write:W@§ì½H€€P°˜X°˜hp·x¸‚kworker/u8:2 ÚRP
ÑÊ„ØŞàŠ^db7vdb*254:162write:WS@¯‘ô)H€€PàƒXàƒ`¯hp©FxªF‚fio Û\Z
ÑÊ„Ø¨Å ^db7vdb*254:162write:W@Ã‘õH€P¦yX¦y`hpšx›‚	badï¿½ï¿½Šbadÿş ÜTR
ÑÊ„Ø°áò^db7loop3*7:32write:WS@˜¯–+H€€PgXg`ö	hp’!x“!‚postgres İZX
ÑÊ„ØÙŠ¿_db7loop3*7:32read:R@Ø¾ÈH€PéNXéN`hpšx›‚	badï¿½ï¿½Šbadÿş Şlj
ÑÊ„ØŒ©š`db7nvme0n1"	nvme0n1p2*259:02read:R@©¤ÿH€€PõXõ`¦hpšx›‚	badï¿½ï¿½Šbadÿş ßRP
ÑÊ„Ø¾¨Ì`db7loop3*7:32read:R@ÉÈÒH€€P¨QX¨Q`™hp’!x“!‚postgres àPN
ÑÊ„ØĞúê`db7loop3*7:32read:R@ÙıÙH€ P…•X…•`ûhp«x«‚cafÃ© áTR
ÑÊ„ØƒÔ¶adb7loop3*7:32read:R@¸Ãã$H€€ P»X»`h	p’!x”!‚postgres â^\
ÑÊ„Øæ‘…bdb7sda"sda1*8:02read:R@‡ÎÅH€€Pç“Xç“`Ëhp’x’‚jbd2/nvme0n1p2 ãMK
ÑÊ„Ø™ŠÒbdb7vdb*254:162read:R@ÇĞ—H€ P±QX±Q`Ô	hp©FxªF‚fio äZX
ÑÊ„Øéàúbdb7vdb*254:162read:R@¯Ú’H€PılXıl`&hp“!x”!‚postgresšEIO åge
ÑÊ„Ø¦±ãcdb7nvme0n1"	nvme0n1p2*259:02read:R@ıÕH€€@Pæ€Xæ€`éhp·x·‚kworker/u8:2 æZX
ÑÊ„ØãøÍddb7sda"sda1*8:02write:WS@•®¶)H€€ P¸€X¸€`°hp’!x’!‚postgres ça_
ÑÊ„Ø˜Óäddb7nvme0n1"	nvme0n1p2*259:02read:R@½Ã÷H€PİÃXİÃ`ñhp‰x‹‚a"b\c
 èki
ÑÊ„Ø«Äedb7nvme0n1"	nvme0n1p2*259:02write:W@¨ÏÄH€€PÑzXÑz`²hpšxš‚	badï¿½ï¿½Šbadÿş éTR
ÑÊ„ØÌ«ıedb7loop3*7:32discard:D@ŸÎéH€@PØYXØY`ëhp“!x“!‚postgres êhf
ÑÊ„Ø’Ëfdb7nvme0n1"	nvme0n1p2*259:02read:R@œÄó+H€€Pæ’Xæ’`hp’x”‚jbd2/nvme0n1p2 ë\Z
ÑÊ„Øú¾·fdb7sda"sda1*8:02read:R@é®¬H€€P}X}`Óhp’x’‚jbd2/nvme0n1p2 ìSQ
ÑÊ„Øâ±‡gdb7vdb*254:162read:R@ªó÷H€€P†iX†i`†
h p’!x’!‚postgres íYW
ÑÊ„ØË©ãgdb7vdb*254:162read:R@ô„¸-H€€PÑjXÑj`éhp’x”‚jbd2/nvme0n1p2 îTR
ÑÊ„ØÙ”Ãhdb7loop3*7:32write:W@û™¦H€€@P’•X’•`ôhp‰x‹‚a"b\c
 ï^\
ÑÊ„Ø™×‰idb7nvme0n1"	nvme0n1p1*259:02read:R@†ıœH€PÀ¿XÀ¿hp‰x‰‚a"b\c
 ğPN
ÑÊ„Ø„ƒæidb7sda"sda1*8:02read:R@óÀH€ PµTXµT`²h
p©FxªF‚fio ñWU
ÑÊ„ØÈ˜jdb7loop3*7:32write:W@ÂØH€€@PµrXµr`òhp·x·‚kworker/u8:2 òQO
ÑÊ„ØÄ£kdb7loop3*7:32write:WS@¨êîH€€P„“X„“`šhp©Fx©F‚fio ó[Y
ÑÊ„ØÓÿ—kdb7vdb*254:162read:R@¾Ç–H€€P¤ÎX¤Î`ì	h	p’x“‚jbd2/nvme0n1p2 ôXV
ÑÊ„ØèİŠldb7sda"sda1*8:02read:R@ˆ¨ıH€€PÖóXÖó`Ûhp“!x”!‚postgres õYW
ÑÊ„ØŸÇ¨ldb7sda"sda1*8:02discard:D@¨Ë®H€€PÒzXÒz`˜hp“!x•!‚postgres ö_]
ÑÊ„Ø›Õºldb7nvme0n1"	nvme0n1p2*259:02read:R@ğ¼Ë)H€PÓXÓ`’hp«x­‚cafÃ© ÷vt
ÑÊ„Øõâ®mdb7nvme0n1"	nvme0n1p1*259:02read:R@ĞúÔH€€PáŠXáŠ`¶hp·x¸‚kworker/u8:2nš	ETIMEDOUT øig
ÑÊ„Øûƒ‚ndb7nvme0n1"	nvme0n1p1*259:02read:R@ÁëH€€P„X„`Óhp’x“‚jbd2/nvme0n1p2 ùTR
ÑÊ„ØÊ¥ndb7nvme0n1"	nvme0n1p2*259:02flush:FPª}Xª}`Ÿh p©FxªF‚fio úJH
ÑÊ„Øº÷¶ndb7loop3*7:32read:R@‚ˆ!H€€PuXuhp©FxªF‚fio û_]
ÑÊ„Øü°„odb7nvme0n1"	nvme0n1p2*259:02read:R@ŒÓ	H€PëkXëk`îhp‰x‹‚a"b\c
 ü_]
ÑÊ„ØÀŞ…odb7nvme0n1"	nvme0n1p2*259:02read:R@¡ ­H€P´„X´„`†h
p«x¬‚cafÃ© ıb`
ÑÊ„Ø£îodb7nvme0n1"	nvme0n1p2*259:02write:W@®ôÙ$H€€PéYXéY`Êhp“!x”!‚postgres ş][
ÑÊ„ØÈ²”odb7nvme0n1"	nvme0n1p1*259:02read:R@Š† H€@PÈ–XÈ–`Íhp©Fx©F‚fio ÿZX
ÑÊ„ØÅ›ùodb7sda"sda1*8:02write:WS@ëı&H€€P¶€X¶€`üh	p’!x”!‚postgres €][
ÑÊ„Ø‹ò€pdb7vdb*254:162write:W@á¤±H€€PÂpXÂp`µh pšxœ‚	badï¿½ï¿½Šbadÿş MK
ÑÊ„ØÆÖòpdb7loop3*7:32read:R@Åö÷H€PX`hp©Fx«F‚fio ‚TR
ÑÊ„Øé©Ÿqdb7vdb*254:162write:WS@è§„H€€PøÿXøÿ`”hp«x¬‚cafÃ© ƒXV
ÑÊ„ØùÑëqdb7vdb*254:162read:R@å—ÕH€€PöúXöúhp’x’‚jbd2/nvme0n1p2 „\Z
ÑÊ„ØÑŒ¦rdb7sda"sda1*8:02read:R@ûŞœH€€PıvXıv`Åhp’x’‚jbd2/nvme0n1p2 …ZX
ÑÊ„Ø«Órdb7sda"sda1*8:02read:R@İçĞH€€PĞcXĞc`íh	p·x·‚kworker/u8:2 †ge
ÑÊ„ØßÖ’sdb7nvme0n1"	nvme0n1p2*259:02read:R@İÂï%H€€PõXõ`ºhp’x’‚jbd2/nvme0n1p2 ‡US
ÑÊ„ØİË—sdb7sda"sda1*8:02read:R@áúù"H€€PÚ„XÚ„hp’!x”!‚postgres ˆdb
ÑÊ„Øà–÷sdb7nvme0n1"	nvme0n1p1*259:02write:W@öÈ”.H€€ PX`Ñhp’!x“!‚postgres ‰QO
ÑÊ„Øì°¯tdb7loop3*7:32read:R@ÇµæH€@PœNXœN`àhp“!x”!‚postgres Š[Y
ÑÊ„ØğÄtdb7vdb*254:162read:R@İŞ¤H€€P«ïX«ï`‚hp’x”‚jbd2/nvme0n1p2 ‹][
ÑÊ„Øª½Ìtdb7nvme0n1"	nvme0n1p1*259:02read:R@‡±H€PÅXÅ`šhp©Fx«F‚fio Œb`
ÑÊ„Ø¼Ïudb7nvme0n1"	nvme0n1p1*259:02read:R@òŠH€€Pü³Xü³`¿hp‰x‹‚a"b\c
 QO
ÑÊ„Ø–åºudb7vdb*254:162write:W@ş‡‚"H€€ Pó“Xó“`…hp©Fx©F‚fio ][
ÑÊ„Ø¬ËÌudb7sda"sda1*8:02read:R@ıí—(H€P ƒX ƒhpšx›‚	badï¿½ï¿½Šbadÿş US
ÑÊ„Øç“¥vdb7loop3*7:32read:R@Ä·âH€€@P’ZX’Zh
p’x“‚jbd2/nvme0n1p2 ][
ÑÊ„ØÌòçvdb7sda"sda1*8:02write:W@ø”ğH€€@Pˆ‘Xˆ‘`Ühp·x¸‚kworker/u8:2 ‘b`
ÑÊ„ØıäĞwdb7nvme0n1"	nvme0n1p2*259:02read:R@Ö»ºH€P¥X¥`…h
p“!x“!‚postgres ’XV
ÑÊ„Øİ°xdb7nvme0n1"	nvme0n1p2*259:02flush:FPÊïXÊï`¯
hp«x«‚cafÃ© “US
ÑÊ„Øúíğxdb7vdb*254:162write:W@²æÒ#H€PÅ•XÅ•`êhp“!x•!‚postgres ”ZX
ÑÊ„Ø—õ¡ydb7loop3*7:32read:R@¢öÈH€€P»€X»€`ÿhp’x’‚jbd2/nvme0n1p2 •KI
ÑÊ„Ø‘ùÎydb7loop3*7:32flush:FP¼ºX¼º`àhp‰xŠ‚a"b\c
 –`^
ÑÊ„Øöìçydb7nvme0n1"	nvme0n1p2*259:02read:R@¦ÿH€€PÚ–XÚ–`Úhp«x«‚cafÃ© —_]
ÑÊ„Ø·œÏzdb7nvme0n1"	nvme0n1p1*259:02write:W@Œ¦„'H€€@PŠkXŠk`Çhp«x­‚cafÃ© ˜b`
ÑÊ„Ø…É¨{db7nvme0n1"	nvme0n1p2*259:02read:R@¼Ò°H€€P­¢	X­¢	`ƒhp‰x‹‚a"b\c
 ™`^
ÑÊ„ØùæÍ{db7nvme0n1"	nvme0n1p2*259:02read:R@ÂãÑH€ PÛZXÛZ`áh
p“!x“!‚postgres ša_
ÑÊ„ØÙ¹­|db7nvme0n1"	nvme0n1p1*259:02write:WS@ÈºñH€€PµXµhp‰x‹‚a"b\c
 ›ec
ÑÊ„Øõ–€}db7nvme0n1"	nvme0n1p2*259:02read:R@²‘%H€P¸pX¸p`ßh p’x”‚jbd2/nvme0n1p2 œlj
ÑÊ„ØçÏŸ}db7nvme0n1"	nvme0n1p1*259:02write:W@ÅéšH€P«áX«á`ãhpšxœ‚	badï¿½ï¿½Šbadÿş TR
ÑÊ„Ø€èÖ}db7vdb*254:162write:W@úÜƒ/H€€@Pš\Xš\`±hp“!x•!‚postgres ][
ÑÊ„ØÒ¶Ü}db7nvme0n1"	nvme0n1p2*259:02read:R@ç˜ÛH€P¦ÚX¦Ú`¯hp©Fx«F‚fio ŸSQ
ÑÊ„ØŠ’à}db7vdb*254:162write:WS@ò±H€@PÈ–XÈ–`Õh
p«x¬‚cafÃ©  [Y
ÑÊ„ØáŞø}db7vdb*254:162read:R@‹ŸÇH€P¿mX¿m`”hpšxœ‚	badï¿½ï¿½Šbadÿş ¡ig
ÑÊ„Øú«Á~db7nvme0n1"	nvme0n1p1*259:02read:R@ö´H€€P¯—X¯—`
h
p’x”‚jbd2/nvme0n1p2 ¢_]
ÑÊ„Ø±¯Ş~db7vdb*254:162write:W@½÷¾H€€Pº•Xº•`ßhpšxœ‚	badï¿½ï¿½Šbadÿş £ki
ÑÊ„Ø­§ç~db7nvme0n1"	nvme0n1p2*259:02read:R@‰ÚH€ P—›X—›`hpšxœ‚	badï¿½ï¿½Šbadÿş ¤US
ÑÊ„Øéáñ~db7loop3*7:32flush:FP­·X­·`Šh pšx›‚	badï¿½ï¿½Šbadÿş ¥^\
ÑÊ„Ø¯º¦db7nvme0n1"	nvme0n1p2*259:02write:W@‚î‡ H€€PÓóXÓóhp«x­‚cafÃ© ¦PN
ÑÊ„ØäÀÁdb7vdb*254:162read:R@ÇôşH€€Pß}Xß}`’hp«x«‚cafÃ© §`^
ÑÊ„ØæÛãdb7sda"sda1*8:02write:W@ˆÖ³
H€€ PÌ`XÌ``hpšxš‚	badï¿½ï¿½Šbadÿş ¨a_
ÑÊ„Ø¬¿„€db7nvme0n1"	nvme0n1p2*259:02read:R@…”ø"H€@P—ZX—Z`°hp“!x”!‚postgres ©^\
ÑÊ„Øæ€š€db7nvme0n1"	nvme0n1p1*259:02write:W@Ñ•îH€€P¡RX¡R`•hp©Fx«F‚fio ªb`
ÑÊ„Ø£«db7nvme0n1"	nvme0n1p2*259:02flush:FPìÈIXìÈI`‹h
p’x“‚jbd2/nvme0n1p2 «fd
ÑÊ„ØïÊÎdb7nvme0n1"	nvme0n1p2*259:02read:R@´”‹,H€€PÄXÄ`æhp·x¹‚kworker/u8:2 ¬%#
ÑÊ„ØïÊÎÃC	`Yô?¸ ¬8ŒX–`^
ÑÊ„Øºˆœ‚db7nvme0n1"	nvme0n1p1*259:02read:R@­¹øH€ PXhp“!x”!‚postgres ­a_
ÑÊ„Ø±‚Æ‚db7nvme0n1"	nvme0n1p2*259:02read:R@¬Ôµ*H€P]X]`èhp“!x•!‚postgres ®_]
ÑÊ„ØÑÈ‚db7vdb*254:162read:R@“‚İH€€@PÈ‚XÈ‚`hpšxš‚	badï¿½ï¿½Šbadÿş ¯OM
ÑÊ„Øï¯ö‚db7vdb*254:162read:R@ùş#H€P»‘X»‘hp«x«‚cafÃ© °a_
ÑÊ„Ø±ƒdb7nvme0n1"	nvme0n1p2*259:02read:R@³­¹H€PÔwXÔw`ïhp“!x”!‚postgres ±lj
ÑÊ„ØØ¬ñƒdb7nvme0n1"	nvme0n1p2*259:02read:R@ò£ÄH€PÒ—XÒ—`¡hpšxœ‚	badï¿½ï¿½Šbadÿş ²mk
ÑÊ„Ø¾ô½„db7nvme0n1"	nvme0n1p2*259:02read:R@ûº÷	H€€ P¤¤X¤¤`ühpšx›‚	badï¿½ï¿½Šbadÿş ³ZX
ÑÊ„Ø¡ĞÈ„db7loop3*7:32write:WS@ˆ‡éH€@PïVXïV`àhp’x”‚jbd2/nvme0n1p2 ´US
ÑÊ„ØâîŒ…db7sda"sda1*8:02write:W@ƒªÕ(H€P¥X¥hp‰x‰‚a"b\c
 µ\Z
ÑÊ„Øÿ¢¦…db7sda"sda1*8:02read:R@‘€H€PÄ_XÄ_`õhp’x“‚jbd2/nvme0n1p2 ¶VT
ÑÊ„ØãØñ…db7vdb*254:162read:R@±‹ä'H€€P¿“X¿“`éhp’!x’!‚postgres ·b`
ÑÊ„ØÈÉ†db7nvme0n1"	nvme0n1p2*259:02read:R@üÎ+H€€PòmXòm`¦hp“!x•!‚postgres ¸ec
ÑÊ„ØÂìâ†db7nvme0n1"	nvme0n1p2*259:02write:W@¯ğ”H€€ P¯–X¯–`ºhp“!x”!‚postgres ¹ca
ÑÊ„ØˆâÊ‡db7nvme0n1"	nvme0n1p2*259:02read:R@çƒ³'H€€P£]X£]hp·x·‚kworker/u8:2 ºus
ÑÊ„ØÈÂæ‡db7nvme0n1"	nvme0n1p1*259:02read:R@õ¹H€€P“^X“^`†hp·x¹‚kworker/u8:2nš	ETIMEDOUT »XV
ÑÊ„Ø‚Æ´ˆdb7sda"sda1*8:02write:WS@¥º²H€€P×ÅX×Å`±hp«x«‚cafÃ© ¼[Y
ÑÊ„Ø£ñ‰‰db7loop3*7:32read:R@ÍûH€€Pˆ¤Xˆ¤`€hp’x”‚jbd2/nvme0n1p2 ½ge
ÑÊ„ØÀÔø‰db7nvme0n1"	nvme0n1p1*259:02read:R@İ—“H€PÏŠXÏŠ`»hp·x·‚kworker/u8:2 ¾b`
ÑÊ„ØÖ’²Šdb7nvme0n1"	nvme0n1p1*259:02write:WS@„äH€€P’X’`hp‰xŠ‚a"b\c
 ¿VT
ÑÊ„Øòû‹db7sda"sda1*8:02read:R@úÄ‘H€€Pí›Xí›hp“!x“!‚postgres Àmk
ÑÊ„ØŞôÍ‹db7nvme0n1"	nvme0n1p1*259:02write:W@™«íH€PÍ–XÍ–`·	hpšx›‚	badï¿½ï¿½Šbadÿş Á`^
ÑÊ„ØŸ…Ò‹db7sda"sda1*8:02read:R@á H€€ PóeXóe`ÿhpšxš‚	badï¿½ï¿½Šbadÿş ÂSQ
ÑÊ„ØÂô²Œdb7sda"sda1*8:02write:W@é¯!H€€PÄzXÄz`æhp©Fx©F‚fio ÃXV
ÑÊ„ØÂ¢db7vdb*254:162read:R@à¸Å'H€ P¸ÒX¸Òhp’x’‚jbd2/nvme0n1p2 Äb`
ÑÊ„Ø°Ï»db7sda"sda1*8:02read:R@ˆ™İH€€P˜¸X˜¸`÷hpšx›‚	badï¿½ï¿½Šbadÿş ÅPN
ÑÊ„Øáç db7loop3*7:32read:R@šÂÎH€€PĞrXĞr`ğhp«x­‚cafÃ© ÆTR
ÑÊ„Ø„šádb7vdb*254:162write:W@²ì€$H€PÈZXÈZ`ˆhp’!x’!‚postgres ÇTR
ÑÊ„Ø®Ó°db7vdb*254:162read:R@ı±¦(H€ P©™X©™`Áh
p‰x‰‚a"b\c
 Èb`
ÑÊ„ØÜİÍdb7nvme0n1"	nvme0n1p1*259:02read:R@ßÍşH€Pã®Xã®`hp“!x”!‚postgres ÉUS
ÑÊ„Øœ¥šdb7vdb*254:162read:R@™ñË
H€@P¡šX¡š`ßh
p’!x“!‚postgres ÊYW
ÑÊ„Ø›Ò½db7sda"sda1*8:02write:W@‹¹½H€€PÄ‹XÄ‹`lhp“!x“!‚postgres Ëa_
ÑÊ„Øµ‘db7nvme0n1"	nvme0n1p1*259:02read:R@àŒ¾,H€€PìdXìd`hp‰xŠ‚a"b\c
 ÌRP
ÑÊ„Ø‘“¶‘db7sda"sda1*8:02write:W@ÎÔç'H€PÈpXÈp`ïhp©Fx«F‚fio Í^\
ÑÊ„ØÑ’db7loop3*7:32write:W@îáõH€PöÔXöÔ`Êhpšxš‚	badï¿½ï¿½Šbadÿş ÎSQ
ÑÊ„ØÃÇÕ’db7vdb*254:162read:R@Í…æH€€PĞ‚XĞ‚`£h p«x¬‚cafÃ© ÏWU
ÑÊ„Øì¯§“db7vdb*254:162write:WS@èöÀH€€@PŠŒXŠŒ`³hp‰x‰‚a"b\c
 ĞXV
ÑÊ„ØÌ¹¯“db7sda"sda1*8:02discard:D@øªH€€PóXó`Áhp‰x‰‚a"b\c
 ÑNL
ÑÊ„Øü¨¥”db7loop3*7:32read:R@Áó™H€ PäZXäZ`=hp«x«‚cafÃ© Òca
ÑÊ„ØÎÛÃ”db7nvme0n1"	nvme0n1p1*259:02read:R@ç‘(H€€P¤ƒX¤ƒ`îhp‰xŠ‚a"b\c
 ÓUS
ÑÊ„Ø¢ª•db7loop3*7:32read:R@ÄèH€€P¿—X¿—`´hp’!x’!‚postgres ÔYW
ÑÊ„Ø²œÿ•db7nvme0n1"	nvme0n1p2*259:02flush:FPõvXõv`Khp“!x”!‚postgres ÕUS
ÑÊ„ØşöÉ–db7loop3*7:32read:R@‘é!H€€Pœ­Xœ­`†hp’!x’!‚postgres Öqo
ÑÊ„Ø¾‰¦—db7nvme0n1"	nvme0n1p1*259:02read:R@ğÃÁ,H€€ Pè‚Xè‚`–	hp·x¸‚kworker/u8:2šEIO ×US
ÑÊ„ØÄ€×—db7loop3*7:32write:WS@Çà•H€€PÒ‘XÒ‘`shp‰x‰‚a"b\c
 Øig
ÑÊ„Ø”áä—db7nvme0n1"	nvme0n1p2*259:02write:WS@ïâõ$H€P±X±`®
hp·x¸‚kworker/u8:2 ÙSQ
ÑÊ„ØÖù¿˜db7loop3*7:32read:R@´ÿ±H€P€`X€`hp·x¹‚kworker/u8:2 Ú^\
ÑÊ„ØÃÖ™db7nvme0n1"	nvme0n1p2*259:02write:W@Ú¢£H€€PÄgXÄg`Îhp©Fx©F‚fio Û[Y
ÑÊ„Ø‰²Õ™db7sda"sda1*8:02discard:D@Ÿ…îH€€PÏ]XÏ]hp·x¹‚kworker/u8:2 ÜPN
ÑÊ„ØØĞÿ™db7vdb*254:162read:R@•íƒH€P¸’X¸’`Šhp©FxªF‚fio İXV
ÑÊ„Øš®šdb7loop3*7:32read:R@‚–´H€€ På“Xå“`Qhp·x¹‚kworker/u8:2 ŞZX
ÑÊ„Ø¿Âßšdb7sda"sda1*8:02read:R@Îœƒ/H€ P¦^X¦^`Åhp·x¹‚kworker/u8:2 ß`^
ÑÊ„Ø¾ÓÓ›db7nvme0n1"	nvme0n1p1*259:02read:R@½Ï¯H€€ P‹²X‹²hp‰xŠ‚a"b\c
 àYW
ÑÊ„ØŒ½¡œdb7sda"sda1*8:02write:W@ï»¡'H€€ PíèXíè`Óhp‰x‹‚a"b\c
 á_]
ÑÊ„Øé˜db7nvme0n1"	nvme0n1p1*259:02read:R@Ê‰H€€Pÿ˜Xÿ˜`Îhp©FxªF‚fio âZX
ÑÊ„Ø¿¢Ødb7loop3*7:32write:W@¦¤ˆH€€P•vX•v`éhp’x“‚jbd2/nvme0n1p2 ãXV
ÑÊ„ØÆûıdb7vdb*254:162read:R@±ñÍH€€PîiXîi`Ìhp·x¹‚kworker/u8:2 äec
ÑÊ„Ø½ıÙdb7nvme0n1"	nvme0n1p1*259:02discard:D@Õ‹H€€P“xX“x`¦hp’!x”!‚postgres åb`
ÑÊ„ØüŸdb7nvme0n1"	nvme0n1p2*259:02read:R@Ã …&H€€P€\X€\`ëhp’!x“!‚postgres ælj
ÑÊ„ØæÜ±Ÿdb7nvme0n1"	nvme0n1p1*259:02read:R@ˆ….H€P§˜X§˜`¬hpšxœ‚	badï¿½ï¿½Šbadÿş çRP
ÑÊ„Øáº‚ db7vdb*254:162read:R@…°»+H€PÅ’XÅ’hp“!x•!‚postgres è\Z
ÑÊ„Ø›¦ß db7nvme0n1"	nvme0n1p1*259:02read:R@ç
H€PşOXşO`hp©FxªF‚fio éfd
ÑÊ„ØŠÿˆ¡db7nvme0n1"	nvme0n1p1*259:02read:R@æèóH€€PˆoXˆo`…h p·x¸‚kworker/u8:2 êTR
ÑÊ„ØÅÃÃ¡db7vdb*254:162discard:D@ªÛÑ	H€€PóšXóš`¹hp©Fx©F‚fio ëa_
ÑÊ„Øø¢ô¡db7nvme0n1"	nvme0n1p1*259:02write:WS@úå™$H€€@P¢WX¢W`hp«x¬‚cafÃ© ìXV
ÑÊ„ØĞ‘¢¢db7loop3*7:32read:R@¸ù¨H€ P’±X’±`“hp·x¹‚kworker/u8:2 íRP
ÑÊ„ØÒÜ§¢db7loop3*7:32read:R@œ³¸H€€P×ÓX×Ó`×hp«x«‚cafÃ© î`^
ÑÊ„Øß‚è¢db7sda"sda1*8:02read:R@ËñÙH€€PªTXªT`ıhpšx›‚	badï¿½ï¿½Šbadÿş ï`^
ÑÊ„ØÈî™£db7nvme0n1"	nvme0n1p1*259:02read:R@Ä²Ñ/H€ P›–X›–`Çhp«x­‚cafÃ© ğge
ÑÊ„Ø©Á±£db7nvme0n1"	nvme0n1p2*259:02read:R@•‘H€€PùXùhp’x”‚jbd2/nvme0n1p2 ñYW
ÑÊ„Øîœª¤db7loop3*7:32read:R@ç¨ûH€€P””X””`®hp·x·‚kworker/u8:2 òRP
ÑÊ„Ø»ÀÂ¤db7vdb*254:162write:WS@ÆÙÈH€ PùSXùS`¿hp«x­‚cafÃ© óec
ÑÊ„ØÅ‚ô¤db7nvme0n1"	nvme0n1p2*259:02write:WS@öÍ®-H€P€’X€’`ªhp“!x•!‚postgres ôfd
ÑÊ„ØğŸ­¥db7nvme0n1"	nvme0n1p1*259:02read:R@àó²H€ PètXèt`xhp’x”‚jbd2/nvme0n1p2 õki
ÑÊ„ØªŠƒ¦db7nvme0n1"	nvme0n1p2*259:02read:R@Ğ§H€€PÖ_XÖ_`¿hpšxš‚	badï¿½ï¿½Šbadÿş öki
ÑÊ„ØµĞ‰¦db7nvme0n1"	nvme0n1p2*259:02write:W@úºÈ'H€€PÀÍXÀÍ`ßhp’x’‚jbd2/nvme0n1p2 ÷ig
ÑÊ„ØÎ¿£¦db7nvme0n1"	nvme0n1p1*259:02read:R@ç‹”+H€@Pá“Xá“`ºhp’x’‚jbd2/nvme0n1p2 øNL
ÑÊ„ØàŒ§db7vdb*254:162read:R@‚¡ÁH€ PÌeXÌe`ãhp©Fx«F‚fio ùSQ
ÑÊ„ØŸÛ§db7sda"sda1*8:02read:R@ê¡ÇH€ PâVXâV`Ïhp«x­‚cafÃ© úa_
ÑÊ„Ø’Ú½¨db7nvme0n1"	nvme0n1p2*259:02read:R@åå-H€€P©‚X©‚`ãhp«x­‚cafÃ© û][
ÑÊ„ØÓÆˆ©db7loop3*7:32write:WS@ÃŞó(H€PYXY`–hpšx›‚	badï¿½ï¿½Šbadÿş ü^\
ÑÊ„Øœ“µ©db7vdb*254:162read:R@»Õ™+H€@PÔâXÔâ`Óhpšx›‚	badï¿½ï¿½Šbadÿş ıdb
ÑÊ„Ø—å„ªdb7nvme0n1"	nvme0n1p2*259:02read:R@¡¥‚(H€€Pü›Xü›`½hp’!x’!‚postgres şTR
ÑÊ„ØœŞœªdb7loop3*7:32read:R@÷ËòH€€ P˜­X˜­`åhp‰x‰‚a"b\c
 ÿ_]
ÑÊ„Øßàåªdb7sda"sda1*8:02read:R@¸ÂµH€€@PŸXŸ`Şhp’x’‚jbd2/nvme0n1p2 €db
ÑÊ„Ø”óùªdb7nvme0n1"	nvme0n1p2*259:02read:R@ıóòH€€P¡ÀX¡À`Òhp“!x”!‚postgres ki
ÑÊ„Ø¢»ç«db7nvme0n1"	nvme0n1p1*259:02read:R@ù×â*H€€PRXR`õhpšxš‚	badï¿½ï¿½Šbadÿş ‚VT
ÑÊ„ØÃ­×¬db7loop3*7:32read:R@İİû*H€P¦bX¦b`hp·x¹‚kworker/u8:2 ƒUS
ÑÊ„Ø³¤½­db7loop3*7:32write:W@îõŒ)H€€P·SX·Shp·x·‚kworker/u8:2 „RP
ÑÊ„ØÇãø­db7vdb*254:162discard:D@ìŠİH€€PàSXàS`”hp©FxªF‚fio …RP
ÑÊ„Øÿ¶è®db7vdb*254:162read:R@¥¦æ	H€PiXi`h
p‰x‰‚a"b\c
 †ki
ÑÊ„Øíş®db7nvme0n1"	nvme0n1p2*259:02write:WS@¾ úH€@PÜXÜ`İhp’x’‚jbd2/nvme0n1p2 ‡_]
ÑÊ„Øş·…¯db7nvme0n1"	nvme0n1p2*259:02write:W@ÉÎ‚H€PïeXïe`hp«x«‚cafÃ© ˆQO
ÑÊ„Ø–½Å¯db7loop3*7:32read:R@ªùÔ(H€P™PX™P`íhp‰x‰‚a"b\c
 ‰OM
ÑÊ„Ø¯ò¯db7vdb*254:162read:R@Ø¤H€PøyXøyhp‰xŠ‚a"b\c
 ŠRP
ÑÊ„Ø³é•°db7loop3*7:32read:R@Æ£%H€ PªYXªY`­
h p“!x•!‚postgres ‹ca
ÑÊ„Ø¹¶Ñ°db7nvme0n1"	nvme0n1p1*259:02read:R@øÔØ)H€€P˜§X˜§`µhp‰xŠ‚a"b\c
 Œ][
ÑÊ„ØÃ¿±db7nvme0n1"	nvme0n1p1*259:02write:W@€‰›#H€€Pâ›Xâ›hp©FxªF‚fio ZX
ÑÊ„ØƒÄ±db7vdb*254:162read:R@ù·Ö)H€€PŞœXŞœ`úh	p·x¹‚kworker/u8:2 TR
ÑÊ„Ø½¥™²db7loop3*7:32write:WS@Î¯±-H€P˜zX˜z`hp’!x”!‚postgres ki
ÑÊ„Ø¯ò¡²db7nvme0n1"	nvme0n1p1*259:02read:R@îöÏH€€PæSXæS`şhpšxœ‚	badï¿½ï¿½Šbadÿş )'
ÑÊ„Ø—ú¡²(SNyIûõ?£ (8Xh