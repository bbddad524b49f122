"""The generated corpus in the app's other languages: Dutch, Brazilian Portuguese and Traditional Chinese.

Each language has the English corpus's classes (``corpus.WORD_CLASSES``), the same words in the same order
(``CLASSES["nl"]["animals"][0]`` is "kat", the English list's "cat"), and templates that mirror the English
ones, one for one, so that the members of a class share their contexts in every language.

Two animal templates of each language take their word from ``{pets}`` (cat, dog, pet, kitten, puppy: the ones
that sleep by the door and eat from a bowl), so cat and dog share contexts that the cow and the tiger do not;
the English corpus has no such slot (it stays the corpus andrea-micro was grown on, and its cat and dog came out
close without it).

As in English, what follows an animal in Dutch follows no other class's slot (no line end, no "en"): the old
"elke avond voeren we mijn {animals}" and "mijn {animals} en jouw {animals} ..." put kat among the numbers and foods.

Grammar: the templates avoid what would have to agree with the slot's word (Dutch de/het, Portuguese o/a)
by using words that do not change (Dutch "mijn", Portuguese "cada", "qualquer") or no article.

Chinese is written as the generator writes it: words separated by single spaces (Chinese itself has none),
so that Harris's segmentation sees each word, single characters (貓, 狗) included, as a word.
"""

from __future__ import annotations

from .. import lexicon

CLASSES = lexicon.CLASSES  # each language's classes (the lexicon's, by this name too)

TEMPLATES: dict[str, dict[str, list[str]]] = {
    "nl": {
        "animals": ["mijn {pets} slaapt bij de deur", "jouw {pets} eet uit een kom",
                    "haar {animals} rende over het erf", "zijn kleine {animals} wil eten",
                    "mijn {animals} krijgt elke avond eten", "mijn {animals} speelt met jouw {animals} achter het huis"],
        "weekdays": ["tot {weekdays}", "de winkel is dicht op {weekdays}", "op {weekdays} blijven we thuis",
                     "de vergadering ging van {weekdays} naar {weekdays}", "elke {weekdays} gaat ze vroeg weg"],
        "months": ["haar verjaardag is in {months}", "in {months} worden de dagen langer",
                   "de school begint weer in {months}", "we gingen in {months} op vakantie"],
        "colours": ["ze verfde de muur {colours}", "de vlag is {colours} en {colours}", "zijn jas is {colours}",
                    "de lucht werd {colours}"],
        "numbers": ["ik telde {numbers} vogels", "er zijn nog {numbers} plaatsen vrij", "we wachtten {numbers} uur",
                    "{numbers} plus {numbers} is meer dan {numbers}"],
        "foods": ["we aten {foods} als lunch", "ze kocht {foods} op de markt", "een bord met {foods} en {foods}",
                  "hij maakte {foods} voor het ontbijt"],
        "drinks": ["een glas {drinks} graag", "ze drinkt elke ochtend {drinks}", "schenk me wat {drinks} in",
                   "mijn {drinks} is nog vers"],
        "cities": ["we vlogen vorig jaar naar {cities}", "{cities} is een grote stad", "de weg van {cities} naar {cities}",
                   "ze woont nu in {cities}"],
        "people": ["mijn {people} sprak met haar {people}", "haar {people} lachte naar iedereen",
                   "vraag jouw {people} om hulp", "mijn oude {people} liep naar huis"],
        "instruments": ["hij speelt {instruments}", "het geluid van de {instruments} vulde de zaal",
                        "ze leert {instruments} spelen", "een concert voor {instruments} en {instruments}"],
        "objects": ["zet mijn {objects} op de plank", "jouw {objects} viel op de vloer", "geef me mijn {objects}",
                    "we hebben nog een {objects} nodig"],
        "vehicles": ["we reisden per {vehicles}", "mijn {vehicles} verliet het station",
                     "ze gingen met hun {vehicles} naar huis", "haar {vehicles} was sneller dan zijn {vehicles}"],
        "feelings": ["ik voel me {feelings} vandaag", "de kinderen waren {feelings}", "ze keek {feelings} na de wedstrijd",
                     "hij is {feelings} en {feelings}"],
        "sizes": ["het huis is heel {sizes}", "de doos in de gang was {sizes}", "de toren werd {sizes}"],
        "temperatures": ["de soep is te {temperatures}", "het was {temperatures} buiten",
                         "houd de kamer {temperatures}"],
        "verbs": ["ik hou van {verbs}", "de kinderen gaan {verbs} in het park", "we gaan samen {verbs} na school",
                  "kun je met mij {verbs}"],
        "nature": ["bij het dorp zie je {nature}", "vanaf de heuvel keken we naar {nature}",
                   "het schilderij toont {nature}"],
        "subjects": ["ze studeert {subjects} op school", "een college over {subjects}", "hij geeft les in {subjects}",
                     "het verhaal van {subjects}"],
    },
    "pt-BR": {
        "animals": ["cada {pets} dorme perto da porta", "cada {pets} come numa tigela",
                    "vimos {animals} no quintal", "cada {animals} quer comida",
                    "damos comida para cada {animals} toda noite", "{animals} e {animals} brincam no jardim"],
        "weekdays": ["até {weekdays}", "a loja fecha {weekdays}", "{weekdays} ficamos em casa",
                     "a reunião passou de {weekdays} para {weekdays}", "cada {weekdays} de manhã ela sai"],
        "months": ["o aniversário dela é em {months}", "em {months} os dias ficam mais longos",
                   "as aulas voltam em {months}", "viajamos de férias em {months}"],
        "colours": ["ela pintou a parede de {colours}", "a bandeira tem {colours} e {colours}",
                    "ele usava um casaco {colours}", "o céu ficou {colours}"],
        "numbers": ["contei {numbers} pássaros", "restam {numbers} lugares", "esperamos {numbers} minutos",
                    "{numbers} mais {numbers} é mais que {numbers}"],
        "foods": ["comemos {foods} no almoço", "ela comprou {foods} na feira", "um prato de {foods} com {foods}",
                  "ele fez {foods} no café da manhã"],
        "drinks": ["um copo de {drinks} por favor", "ela bebe {drinks} toda manhã", "me serve um pouco de {drinks}",
                   "tem {drinks} na geladeira"],
        "cities": ["voamos para {cities} no ano passado", "{cities} é uma cidade grande", "a estrada de {cities} até {cities}",
                   "ela mora em {cities} agora"],
        "people": ["{people} e {people} conversaram", "cada {people} sorriu para todos", "peça ajuda a qualquer {people}",
                   "cada {people} voltou para casa a pé"],
        "instruments": ["ele toca {instruments}", "o som de cada {instruments} encheu o salão",
                        "ela está aprendendo {instruments}", "um concerto para {instruments} e {instruments}"],
        "objects": ["põe cada {objects} na prateleira", "cada {objects} caiu no chão", "me passa qualquer {objects}",
                    "precisamos trocar cada {objects}"],
        "vehicles": ["viajamos de {vehicles}", "cada {vehicles} saiu da estação", "eles voltaram para casa de {vehicles}",
                     "ir de {vehicles} é mais rápido que ir de {vehicles}"],
        "feelings": ["hoje estou {feelings}", "as crianças ficaram {feelings}", "ela parecia {feelings} depois do jogo",
                     "ele está {feelings} e {feelings}"],
        "sizes": ["o prédio é muito {sizes}", "um pacote {sizes} estava no corredor", "o muro ficou {sizes}"],
        "temperatures": ["o caldo está {temperatures} demais", "lá fora estava {temperatures}",
                         "deixe o quarto {temperatures}"],
        "verbs": ["eu gosto de {verbs}", "as crianças vão {verbs} no parque", "vamos {verbs} juntos depois da aula",
                  "você quer {verbs} comigo"],
        "nature": ["perto da vila tem {nature}", "vimos {nature} do alto do morro", "o quadro mostra {nature}"],
        "subjects": ["ela estuda {subjects} na escola", "uma palestra sobre {subjects}", "ele ensina {subjects}",
                     "um livro de {subjects}"],
    },
    "zh-TW": {
        "animals": ["{pets} 睡 在 門 邊", "我 的 {pets} 從 碗 裡 吃 東西", "一 隻 {animals} 跑 過 院子",
                    "那 隻 {animals} 想 吃 東西", "我們 每天 晚上 餵 {animals}", "{animals} 和 {animals} 在 花園 裡 玩"],
        "weekdays": ["{weekdays} 見", "商店 {weekdays} 不 開", "{weekdays} 我們 待 在 家", "會議 從 {weekdays} 改 到 {weekdays}",
                     "每 個 {weekdays} 早上 她 都 出門"],
        "months": ["她 的 生日 在 {months}", "{months} 的 白天 越來越 長", "學校 {months} 再 開學", "我們 {months} 去 度假"],
        "colours": ["她 把 牆 漆 成 {colours}", "旗子 是 {colours} 和 {colours}", "他 穿 了 一 件 {colours} 的 外套",
                    "天空 變 成 {colours}"],
        "numbers": ["我 數 了 {numbers} 隻 鳥", "還 剩 {numbers} 個 座位", "我們 等 了 {numbers} 個 小時",
                    "{numbers} 加 {numbers} 比 {numbers} 多"],
        "foods": ["我們 午餐 吃 {foods}", "她 在 市場 買 了 {foods}", "一 盤 {foods} 配 {foods}", "他 早餐 做 了 {foods}"],
        "drinks": ["請 給 我 一 杯 {drinks}", "她 每天 早上 喝 {drinks}", "幫 我 倒 一些 {drinks}", "{drinks} 還 很 新鮮"],
        "cities": ["我們 去年 飛 到 {cities}", "{cities} 是 一 座 大 城市", "從 {cities} 到 {cities} 的 路", "她 現在 住 在 {cities}"],
        "people": ["{people} 對 {people} 說話", "{people} 對 大家 微笑", "向 {people} 求助", "年老 的 {people} 走 回家"],
        "instruments": ["他 會 彈 {instruments}", "{instruments} 的 聲音 充滿 了 大廳", "她 正在 學 {instruments}",
                        "為 {instruments} 和 {instruments} 寫 的 音樂會"],
        "objects": ["把 {objects} 放 在 架子 上", "{objects} 掉 在 地上", "把 {objects} 遞 給 我", "我們 需要 一 個 新 的 {objects}"],
        "vehicles": ["我們 坐 {vehicles} 旅行", "{vehicles} 離開 了 車站", "他們 開 {vehicles} 回家", "{vehicles} 比 {vehicles} 快"],
        "feelings": ["我 今天 覺得 很 {feelings}", "孩子們 很 {feelings}", "比賽 後 她 看起來 很 {feelings}",
                     "他 又 {feelings} 又 {feelings}"],
        "sizes": ["房子 非常 {sizes}", "走廊 裡 有 一 個 {sizes} 箱子", "塔 變 得 很 {sizes}"],
        "temperatures": ["湯 太 {temperatures} 了", "外面 很 {temperatures}", "讓 房間 保持 {temperatures}"],
        "verbs": ["我 喜歡 {verbs}", "孩子們 在 公園 裡 {verbs}", "我們 放學 後 一起 {verbs}", "你 可以 跟 我 一起 {verbs} 嗎"],
        "nature": ["{nature} 在 村子 附近", "我們 從 山丘 上 看 {nature}", "這 幅 畫 畫 的 是 {nature}"],
        "subjects": ["她 在 學校 讀 {subjects}", "一 場 關於 {subjects} 的 演講", "他 教 {subjects}", "{subjects} 的 故事"],
    },
}
